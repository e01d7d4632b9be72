//! The explorer's two plots, as inline SVG: an attempt's speed reads and the miners' shares
//! of the weight vector over epochs. Every mark carries a class (`b`, `c`, `r`, `interval`,
//! `margin`, `share`) so a test can count what was drawn.

use super::escape::esc;

const W: f64 = 640.0;
const LEFT: f64 = 104.0;
const RIGHT: f64 = 16.0;

/// Maps `v` in `[lo, hi]` to `[bottom, top]` (pixels, top < bottom).
fn scale(v: f64, lo: f64, hi: f64, bottom: f64, top: f64) -> f64 {
    if hi <= lo {
        return (bottom + top) / 2.0;
    }
    bottom - (v - lo) / (hi - lo) * (bottom - top)
}

/// The x of point `i` of `n` across the plot's width.
fn x_at(i: usize, n: usize) -> f64 {
    let span = W - LEFT - RIGHT;
    if n <= 1 {
        LEFT + span / 2.0
    } else {
        LEFT + span * i as f64 / (n - 1) as f64
    }
}

/// `lo` and `hi` widened by a twentieth of their span (or a little, when they are equal).
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let pad = ((hi - lo) / 20.0).max(hi.abs() * 1e-3).max(1e-9);
    (lo - pad, hi + pad)
}

/// A plot panel's background between `top` and `bottom`.
fn frame(top: f64, bottom: f64) -> String {
    format!(
        r#"<rect class="frame" x="{LEFT}" y="{top}" width="{}" height="{}"/>"#,
        W - LEFT - RIGHT,
        bottom - top
    )
}

fn axis_label(x: f64, y: f64, text: &str) -> String {
    format!(
        r#"<text x="{x:.1}" y="{y:.1}" class="axis">{}</text>"#,
        esc(text)
    )
}

/// An attempt's timed reads: above, each pair's baseline (B) and candidate (C) read in ms;
/// below, each pair's speedup B / C with the 95 % interval as a band, 1.0 and the arena's
/// `1 + margin` as lines.
pub fn speed_reads(
    baseline: &[f64],
    candidate: &[f64],
    interval: Option<(f64, f64)>,
    margin: f64,
) -> String {
    let n = baseline.len().min(candidate.len());
    let mut s = format!(
        r#"<svg class="reads" xmlns="http://www.w3.org/2000/svg" width="{W}" height="380" viewBox="0 0 {W} 380" role="img" aria-label="speed reads">"#
    );
    if n == 0 {
        s.push_str(&axis_label(LEFT, 40.0, "no timed reads in this report"));
        s.push_str("</svg>");
        return s;
    }
    // Reads, ms.
    let all = baseline[..n].iter().chain(&candidate[..n]).copied();
    let (lo, hi) = all.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let (lo, hi) = padded(lo, hi);
    let (top, bottom) = (20.0, 170.0);
    s.push_str(&frame(top, bottom));
    s.push_str(&axis_label(4.0, top + 10.0, &format!("{hi:.2} ms")));
    s.push_str(&axis_label(4.0, bottom, &format!("{lo:.2} ms")));
    for (series, class) in [(baseline, "b"), (candidate, "c")] {
        for (i, &v) in series[..n].iter().enumerate() {
            s.push_str(&format!(
                r#"<circle class="{class}" cx="{:.1}" cy="{:.1}" r="3"><title>pair {i}: {class} {v:.3} ms</title></circle>"#,
                x_at(i, n),
                scale(v, lo, hi, bottom, top)
            ));
        }
    }
    // Speedups.
    let ratios: Vec<f64> = (0..n)
        .map(|i| baseline[i] / candidate[i].max(1e-12))
        .collect();
    let need = 1.0 + margin;
    let mut marks: Vec<f64> = ratios.clone();
    marks.extend([1.0, need]);
    if let Some((l, h)) = interval {
        marks.extend([l, h]);
    }
    let (rlo, rhi) = marks
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let (rlo, rhi) = padded(rlo, rhi);
    let (top, bottom) = (200.0, 350.0);
    s.push_str(&frame(top, bottom));
    if let Some((l, h)) = interval {
        let (y1, y2) = (
            scale(h, rlo, rhi, bottom, top),
            scale(l, rlo, rhi, bottom, top),
        );
        s.push_str(&format!(
            r#"<rect class="interval" x="{LEFT}" y="{y1:.1}" width="{}" height="{:.1}"><title>95 % interval {l:.4} to {h:.4}</title></rect>"#,
            W - LEFT - RIGHT,
            (y2 - y1).max(1.0)
        ));
    }
    s.push_str(&axis_label(4.0, top + 10.0, &format!("B/C {rhi:.3}")));
    s.push_str(&axis_label(4.0, bottom, &format!("B/C {rlo:.3}")));
    for (v, class, label) in [(1.0, "one", "1.0"), (need, "margin", "1 + margin")] {
        let y = scale(v, rlo, rhi, bottom, top);
        s.push_str(&format!(
            r#"<line class="{class}" x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}"/>"#,
            W - RIGHT
        ));
        s.push_str(&axis_label(4.0, y + 4.0, &format!("{label} {v:.3}")));
    }
    for (i, &r) in ratios.iter().enumerate() {
        s.push_str(&format!(
            r#"<circle class="r" cx="{:.1}" cy="{:.1}" r="3"><title>pair {i}: B/C {r:.4}</title></circle>"#,
            x_at(i, n),
            scale(r, rlo, rhi, bottom, top)
        ));
    }
    s.push_str(&axis_label(
        LEFT,
        372.0,
        &format!("{n} pairs: reads above, speedup B/C below;"),
    ));
    s.push_str(&format!(
        r##"<text x="{:.1}" y="372" class="axis"><tspan fill="#1f77b4">● B baseline</tspan> <tspan fill="#ff7f0e">● C candidate</tspan> <tspan fill="#2ca02c">■ 95 % interval</tspan> <tspan fill="#c62828">– – margin</tspan></text>"##,
        LEFT + 210.0
    ));
    s.push_str("</svg>");
    s
}

const COLORS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

/// Each account's share of the weight vector (ppm) over the epochs, one line an account.
/// `epochs`: `(epoch, [(account label, ppm)])` in order.
pub fn shares(epochs: &[(u64, Vec<(String, u32)>)]) -> String {
    let mut s = format!(
        r#"<svg class="shares" xmlns="http://www.w3.org/2000/svg" width="{W}" height="300" viewBox="0 0 {W} 300" role="img" aria-label="shares over epochs">"#
    );
    let (top, bottom) = (20.0, 240.0);
    s.push_str(&frame(top, bottom));
    s.push_str(&axis_label(4.0, top + 10.0, "100 %"));
    s.push_str(&axis_label(4.0, bottom, "0 %"));
    let n = epochs.len();
    if n == 0 {
        s.push_str(&axis_label(LEFT + 8.0, 130.0, "no epoch's weights yet"));
        s.push_str("</svg>");
        return s;
    }
    let mut accounts: Vec<&str> = Vec::new();
    for (_, ws) in epochs {
        for (a, _) in ws {
            if !accounts.contains(&a.as_str()) {
                accounts.push(a);
            }
        }
    }
    for (k, account) in accounts.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let points: Vec<(f64, f64)> = epochs
            .iter()
            .enumerate()
            .map(|(i, (_, ws))| {
                let ppm = ws.iter().find(|(a, _)| a == account).map_or(0, |(_, p)| *p);
                (x_at(i, n), scale(ppm as f64, 0.0, 1e6, bottom, top))
            })
            .collect();
        let path: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        s.push_str(&format!(
            r#"<polyline class="share" fill="none" stroke="{color}" stroke-width="2" points="{}"><title>{}</title></polyline>"#,
            path.join(" "),
            esc(account)
        ));
        for (x, y) in points {
            s.push_str(&format!(
                r#"<circle class="share" cx="{x:.1}" cy="{y:.1}" r="3" fill="{color}"/>"#
            ));
        }
        s.push_str(&format!(
            r#"<text x="{:.1}" y="{:.1}" class="legend" fill="{color}">{}</text>"#,
            LEFT + 140.0 * (k % 4) as f64,
            262.0 + 16.0 * (k / 4) as f64,
            esc(account)
        ));
    }
    let (first, last) = (epochs[0].0, epochs[n - 1].0);
    s.push_str(&axis_label(
        LEFT,
        296.0,
        &format!("epochs {first} to {last}"),
    ));
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reads_plot_draws_every_pair_the_interval_and_the_margin() {
        let svg = speed_reads(
            &[10.0, 10.2, 9.9],
            &[9.0, 9.1, 9.0],
            Some((1.08, 1.14)),
            0.02,
        );
        assert_eq!(svg.matches(r#"class="b""#).count(), 3);
        assert_eq!(svg.matches(r#"class="c""#).count(), 3);
        assert_eq!(svg.matches(r#"class="r""#).count(), 3);
        assert!(svg.contains(r#"class="interval""#) && svg.contains(r#"class="margin""#));
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        let empty = speed_reads(&[], &[], None, 0.02);
        assert!(empty.contains("no timed reads") && !empty.contains("<circle"));
    }

    #[test]
    fn the_shares_plot_has_a_line_an_account_and_escapes_labels() {
        let epochs = vec![
            (1, vec![("Alice".to_string(), 1_000_000)]),
            (
                2,
                vec![("Alice".into(), 400_000), ("<Bob>".into(), 600_000)],
            ),
        ];
        let svg = shares(&epochs);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("&lt;Bob&gt;") && !svg.contains("<Bob>"));
        assert!(shares(&[]).contains("no epoch"));
    }
}
