//! No input makes the source screen or the lane's frame reader panic.

use cacheon::lane::protocol::read_frame;
use cacheon::policy::{screen_source, Language};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn source_screen_never_panics(text in "\\PC{0,300}", cuda in any::<bool>()) {
        let lang = if cuda { Language::Cuda } else { Language::C };
        let _ = screen_source("k.c", &text, lang, &[]);
    }

    #[test]
    fn source_screen_never_panics_on_c_like_text(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("#include <math.h>\n"), Just("/*"), Just("*/"), Just("//"), Just("\""),
                Just("'"), Just("\\\n"), Just("##"), Just("#pragma unroll\n"), Just("clock"),
                Just("float x = 1.0f;\n"), Just("\\u0041"), Just("%:"), Just("\n"), Just("#"),
            ],
            0..40,
        )
    ) {
        let text: String = parts.concat();
        let _ = screen_source("k.c", &text, Language::C, &[]);
    }

    #[test]
    fn frame_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut r = &bytes[..];
        while let Ok(Some(_)) = read_frame(&mut r) {}
    }
}
