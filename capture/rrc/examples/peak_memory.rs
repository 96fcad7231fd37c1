//! Peak resident memory of reading a gzip capture, streamed (`read_file`) side by side with
//! holding the whole stored file first (`read_bytes` of `std::fs::read`, what `read_file` did
//! before it streamed). Writes a synthetic capture of `MIB` MiB of memory data (default 256),
//! then reads it in two child processes and prints each one's peak RSS (Linux `VmHWM`) as a
//! multiple of the decompressed stream's size.
//!
//! `cargo run --release -p rsxtrace-rrc --example peak_memory [MIB]`

use std::process::Command;

/// Peak resident set of this process in bytes (`VmHWM` in /proc/self/status).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Memory data that gzip shrinks about 2:1, like vertex and texture data (big-endian floats
/// with noisy low bits).
fn capture(mib: usize) -> rsxtrace_rrc::Capture {
    let mut c = rsxtrace_rrc::Capture::empty("peak");
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for block in 0..mib {
        let mut v = Vec::with_capacity(1 << 20);
        while v.len() < 1 << 20 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.extend_from_slice(&[0x3F, 0x80 | (x as u8 & 0x3F), (x >> 8) as u8, 0]);
        }
        c.data.push(rsxtrace_rrc::Entry {
            id: 0x2000 + block as u64,
            value: v.into(),
        });
        c.commands.push(rsxtrace_rrc::ReplayCommand {
            first: 0x1808 | 1 << 18,
            ..Default::default()
        });
    }
    c
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, path] = &args[..] {
        let path = std::path::Path::new(path);
        let capture = match mode.as_str() {
            "streamed" => rsxtrace_rrc::read_file(path).expect("read"),
            _ => rsxtrace_rrc::read_bytes(&std::fs::read(path).expect("read"), "x").expect("read"),
        };
        let stream: usize = capture.data.iter().map(|d| d.value.len()).sum();
        println!("{} {}", peak_rss(), stream);
        return;
    }
    let mib: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(256);
    let dir = std::env::temp_dir().join(format!("rsxtrace-peak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("peak.rrc.gz");
    let file = rsxtrace_rrc::write_v6(&capture(mib));
    std::fs::write(&path, &file).unwrap();
    println!(
        "capture: {mib} MiB of memory data, {} MiB gzip",
        file.len() >> 20
    );
    drop(file);
    let me = std::env::current_exe().unwrap();
    for mode in ["whole-file", "streamed"] {
        let out = Command::new(&me)
            .args([mode, path.to_str().unwrap()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut numbers = text
            .split_whitespace()
            .map(|n| n.parse::<u64>().unwrap_or(0));
        let (peak, stream) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(1));
        println!(
            "{mode:>10}: peak RSS {} MiB = {:.3} x the {} MiB of memory data",
            peak >> 20,
            peak as f64 / stream as f64,
            stream >> 20
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
