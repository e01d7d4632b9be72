//! Compiled PTX, read as text (no GPU needed): the ABI check of a kernel's `.entry`
//! against its slot ([`check_abi`], DESIGN 7 step 4; `abi.rs`) and the artifact screen of
//! CUDA bundles ([`screen_ptx`]: no timers, launch identity, external calls, traps, other
//! architectures or large module globals; `screen.rs`).

mod abi;
mod screen;

pub use abi::{check_abi, parse_entries, AbiError, PtxEntry, PtxParam, PtxParseError};
pub use screen::{screen_ptx, PtxViolation, ARENA_ARCH, MAX_GLOBAL_BYTES};
