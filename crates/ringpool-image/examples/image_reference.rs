//! Native reference for the demo's e2e test: prints `{"filter": checksum, ...}` (FNV-1a of the
//! output bytes) for every kernel over the built-in sample, computed in `bands` row bands.
//!
//! `cargo run --release -p ringpool-image --example image_reference -- WIDTH HEIGHT RADIUS AMOUNT BANDROWS`

use ringpool_image::{apply, fnv1a, sample, Filter};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> f64 { args.get(i).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("usage: WIDTH HEIGHT RADIUS AMOUNT BANDROWS")) };
    let (w, h, radius, amount, band_rows) = (num(0) as u32, num(1) as u32, num(2) as u32, num(3) as f32, num(4) as u32);
    let src = sample(w, h);
    let filters = [
        ("grayscale", Filter::Grayscale),
        ("blur", Filter::Blur { radius }),
        ("sharpen", Filter::Sharpen { radius, amount }),
        ("sobel", Filter::Sobel),
        ("emboss", Filter::Emboss),
    ];
    let stride = w as usize * 4;
    let mut out = Vec::new();
    for (name, filter) in filters {
        let mut dst = vec![0u8; src.len()];
        for (i, band) in dst.chunks_mut(stride * band_rows as usize).enumerate() {
            let y0 = i as u32 * band_rows;
            apply(filter, &src, band, w, h, y0, y0 + (band.len() / stride) as u32).expect("valid arguments");
        }
        out.push(format!("\"{name}\": {}", fnv1a(&dst)));
    }
    println!("{{{}}}", out.join(", "));
}
