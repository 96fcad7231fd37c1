//! `rsxtrace debug` as a GDB remote server, driven by a real gdb (Debian's, installed by
//! `.ci/run`) in batch mode: breakpoints on slots, continue, stepi, register reads checked
//! against the interpreter's own trace, a register write that takes effect, memory reads of the
//! inputs, monitor commands, a breakpoint inside a loop hit once per iteration, and the program
//! end reported as the process exiting.

use rsxtrace_replay::interp::fragment::trace::trace_quad;
use rsxtrace_replay::interp::fragment::FragmentState;
use rsxtrace_replay::shade::{load_program_file, pixel_quad};
use rsxtrace_replay::texture::NoTextures;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A server on a free port for `program` at `pixel` of a `size` image, and its address.
fn server(program: &Path, pixel: &str, size: &str) -> (Child, String) {
    let program = program.to_str().unwrap();
    serve(&[program, "--pixel", pixel, "--size", size])
}

/// `rsxtrace debug ARGS` listening on a free port, and its address (from its first line on
/// standard error).
fn serve(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .arg("debug")
        .args(args)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start rsxtrace debug");
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split_whitespace()
        .nth(4)
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (child, addr)
}

/// gdb in batch mode against `addr` with `commands`; its standard output.
fn gdb(addr: &str, commands: &[&str]) -> String {
    let mut cmd = Command::new("gdb");
    cmd.args(["-nx", "-batch", "-ex", &format!("target remote {addr}")]);
    for c in commands {
        cmd.args(["-ex", c]);
    }
    let out = cmd
        .output()
        .expect("gdb runs (Debian's gdb: `apt-get install gdb`, as .ci/run does)");
    // Monitor output goes to standard error in batch mode.
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// gdb's text of four floats (`{a, b, c, d}`, %g-like shortest forms).
fn v4(v: [f64; 4]) -> String {
    let f: Vec<String> = v.iter().map(|x| format!("{}", *x as f32)).collect();
    format!("{{{}}}", f.join(", "))
}

fn fog() -> std::path::PathBuf {
    rsxtrace_testkit::workspace!()
        .root()
        .join("traces/level/fog.fpo")
}

#[test]
fn gdb_steps_breaks_reads_and_writes_registers() {
    let program = fog();
    // The interpreter's own record of the same invocation.
    let loaded = load_program_file(&program, &[]).unwrap();
    let (quad, lane) = pixel_quad(3, 5, 16, 16);
    let t = trace_quad(
        &loaded.program,
        &FragmentState::new(loaded.control),
        &quad,
        &NoTextures,
    )
    .unwrap();
    let at_slot = |slot: u32| t.steps.iter().position(|s| s.slot == slot).unwrap();
    // R2 after slot 3 (MADR R2.xy, f[TEX0]...): what `p $R2` shows at the breakpoint on 5.
    let r2 = t.steps[at_slot(3)].written.as_ref().unwrap().value[lane];
    let (mut child, addr) = server(&program, "3,5", "16x16");
    let out = gdb(
        &addr,
        &[
            "break *5",
            "continue",
            "p $pc",
            "p $R2",
            "stepi",
            "p $pc",
            "set var $R2 = {1, 2, 3, 4}",
            "p $R2",
            "monitor rsx insn",
            "x/4xw 0x10000040",
            "continue",
        ],
    );
    let status = child.wait().unwrap();
    assert!(status.success(), "server exit {status:?}\n{out}");
    assert!(out.contains("Breakpoint 1, 0x00000005"), "{out}");
    assert!(out.contains(&format!("= {}", v4(r2))), "R2 {:?}\n{out}", r2);
    // stepi from slot 5 reaches the next instruction's slot.
    let next = t.steps[at_slot(5) + 1].slot;
    assert!(out.contains(&format!("0x{next:08x} in ?? ()")), "{out}");
    // The write holds, and the monitor names the next instruction.
    assert!(out.contains("= {1, 2, 3, 4}"), "{out}");
    assert!(out.contains(&format!("{next:>4}: ")), "{out}");
    // TEX0 (input attribute 4) of the traced lane at 0x10000040.
    let tex0 = quad.lanes[lane].attributes[4];
    let words: Vec<String> = tex0
        .iter()
        .map(|x| format!("0x{:08x}", x.to_bits()))
        .collect();
    assert!(out.contains(&words.join("\t")), "{words:?}\n{out}");
    assert!(out.contains("exited normally"), "{out}");
}

#[test]
fn a_breakpoint_in_a_loop_stops_once_per_iteration() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    // rsx_fp_dynamic_test2: LOOP at slot 31, body from slot 32 (its disassembly).
    let program = corpus.path("ps3autotests/rsx_fp_dynamic_test2.fpo");
    let (mut child, addr) = server(&program, "100,100", "256x256");
    let out = gdb(
        &addr,
        &[
            "break *32",
            "continue",
            "p $A0",
            "continue",
            "p $A0",
            "continue",
            "p $A0",
            "p $DEPTH",
            "delete",
            "continue",
        ],
    );
    assert!(child.wait().unwrap().success(), "{out}");
    assert_eq!(out.matches("Breakpoint 1, 0x00000020").count(), 3, "{out}");
    for (k, a0) in ["$1 = 0", "$2 = 1", "$3 = 2"].iter().enumerate() {
        assert!(out.contains(a0), "iteration {k}: {out}");
    }
    assert!(out.contains("$4 = 1"), "depth inside the loop: {out}");
    assert!(out.contains("exited normally"), "{out}");
}

#[test]
fn only_loopback_is_served_without_a_flag() {
    let o = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args([
            "debug",
            fog().to_str().unwrap(),
            "--pixel",
            "1,1",
            "--listen",
            "0.0.0.0:0",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--allow-remote"));
}

#[test]
fn the_documented_gdb_session_is_what_gdb_prints() {
    let doc = std::fs::read_to_string(rsxtrace_testkit::workspace!().root().join("docs/debug.md"))
        .unwrap();
    let start = doc
        .find("$ gdb -nx -batch ")
        .expect("the documented gdb command");
    let command_line = &doc[start + 2..];
    let command_line = &command_line[..command_line.find('\n').unwrap()];
    let body = &doc[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let transcript = &body[..body.find("```").unwrap()];
    let (mut child, addr) = server(&fog(), "3,5", "16x16");
    let command_line = command_line.replace("127.0.0.1:9134", &addr);
    // One stream, in the order gdb writes (monitor output goes to standard error).
    let out = Command::new("sh")
        .args(["-c", &format!("{command_line} 2>&1")])
        .output()
        .unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), transcript);
}

#[test]
fn malformed_packets_get_replies_not_a_crash() {
    use std::io::{Read, Write};
    let (mut child, addr) = server(&fog(), "3,5", "16x16");
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let packet = |body: &str| -> Vec<u8> {
        let sum = body.bytes().fold(0u8, |a, b| a.wrapping_add(b));
        format!("${body}#{sum:02x}").into_bytes()
    };
    // Reads until a nack or a whole reply packet (`+$...#xx`) has arrived.
    let mut reply = |packet: &[u8]| -> String {
        s.write_all(packet).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let done = got.first() == Some(&b'-')
                || got
                    .iter()
                    .rposition(|&b| b == b'#')
                    .is_some_and(|h| got.len() >= h + 3);
            if done {
                break;
            }
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&got).into_owned()
    };
    // A bad checksum and a malformed one are refused with '-' (send again); an unknown
    // packet gets the empty reply; the session then still answers `g`.
    assert!(reply(b"$g#00").starts_with('-'));
    assert!(reply(b"$g#zz").starts_with('-'));
    let unknown = reply(&packet("Qbogus:1"));
    assert!(unknown.contains("$#00"), "{unknown}");
    // Packets with good checksums that gdbstub cannot take (each used to end the session):
    // a malformed register write, a register write too short, a memory read that is not hex,
    // a breakpoint address past 32 bits, a monitor command that is not hex, and an unknown
    // target description annex get error 01, and the session goes on.
    for refused in [
        "Gzzzz",
        "G00",
        "mzz,zz",
        "Z0,ffffffffffffffff,1",
        "qRcmd,zz",
        "qXfer:features:read:nonexist.xml:0,10",
    ] {
        let r = reply(&packet(refused));
        assert!(r.contains("$E01#a6"), "{refused}: {r}");
    }
    // Stray bytes outside a packet (and a '-' gdbstub cannot answer) are skipped.
    let g = reply(&[b"garbage-".as_slice(), &packet("g")].concat());
    assert!(g.starts_with("+$"), "{g}");
    let _ = reply(&packet("k"));
    drop(s);
    let status = child.wait().unwrap();
    assert!(
        status.code().is_some(),
        "exited, not killed by a signal: {status:?}"
    );
}

#[test]
fn a_client_that_goes_away_without_detaching_ends_the_session_cleanly() {
    // gdb killed, or any client closing its socket mid-session: the session is over as at a
    // detach, and the server exits 0 (docs/debug.md), not with a connection error.
    use std::io::Write;
    let (mut child, addr) = server(&fog(), "3,5", "16x16");
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.write_all(b"+$?#3f").unwrap();
    drop(s);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn a_captured_draw_is_served_with_its_inputs_and_textures() {
    let sample = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    let (mut child, addr) = serve(&[sample.to_str().unwrap(), "--draw", "2", "--pixel", "189,76"]);
    let out = gdb(&addr, &["monitor rsx textures", "stepi", "p $R0"]);
    assert!(child.wait().unwrap().success(), "{out}");
    assert!(out.contains("unit 0: a8r8g8b8"), "{out}");
    assert!(
        out.contains("exited normally"),
        "one instruction, then the end: {out}"
    );
}

#[test]
fn a_killed_pixel_is_reported_as_the_process_exiting_with_code_1() {
    use rsxtrace_program::fragment::{
        encode, AluOperands, Condition, Destination, FpOpcode, FragmentInstruction,
        FragmentProgram, InputAttribute, Operands, OutputScale, Precision, Source, SourceKind,
        WriteMask,
    };
    // KIL (always), then MOV R0, f[COL0]; END: raw microcode made by the project's encoder.
    let insn = |slot: u32, opcode: FpOpcode, no_dest: bool, end: bool| FragmentInstruction {
        slot,
        opcode,
        end,
        dest: Destination {
            index: 0,
            fp16: false,
            mask: if no_dest {
                WriteMask(0)
            } else {
                WriteMask::XYZW
            },
            precision: Precision::Fp32,
            saturate: false,
            no_dest,
            set_cond: false,
            cc_write: 0,
        },
        input: InputAttribute(1),
        texture_unit: 0,
        exp_tex: false,
        condition: Condition::ALWAYS,
        operands: Operands::Alu(AluOperands {
            sources: [
                Source {
                    kind: SourceKind::Input,
                    ..Source::temp(0)
                },
                Source::temp(0),
                Source::temp(0),
            ],
            scale: OutputScale::None,
            perspective: false,
            indexed_input: false,
            input_displacement: 0,
        }),
        constant: None,
    };
    let bytes = encode(&FragmentProgram::new(vec![
        insn(0, FpOpcode::Kil, true, false),
        insn(1, FpOpcode::Mov, false, true),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("kil.fp");
    std::fs::write(&raw, bytes).unwrap();
    let (mut child, addr) = server(&raw, "1,1", "4x4");
    let out = gdb(&addr, &["monitor rsx insn", "continue"]);
    assert!(child.wait().unwrap().success(), "{out}");
    assert!(out.contains("KIL"), "{out}");
    assert!(out.contains("exited with code 01"), "{out}");
}

#[test]
fn a_vertex_is_served_with_outputs_constants_and_register_writes() {
    // The basic sample's draw 0: MOV o[COL0], v[COL0]; DP4 o[HPOS].w/.z/.y/.x with c[35..32].
    let sample = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    let (mut child, addr) = serve(&[sample.to_str().unwrap(), "--draw", "0", "--vertex", "1"]);
    let out = gdb(
        &addr,
        &[
            "monitor rsx insn",
            "break *3",
            "continue",
            "p $HPOS",
            "set var $HPOS = {9, 8, 7, 6}",
            "stepi",
            "p $HPOS",
            "p $A0",
            "continue",
        ],
    );
    assert!(child.wait().unwrap().success(), "{out}");
    assert!(out.contains("000: MOV o[COL0], v[COL0]"), "{out}");
    assert!(out.contains("Breakpoint 1, 0x00000003"), "{out}");
    // Before slot 3 HPOS.x and .y are still the initial 0; z and w are written.
    let first = out
        .lines()
        .find(|l| l.starts_with("$1 = "))
        .expect("p $HPOS");
    assert!(first.starts_with("$1 = {0, 0, "), "{first}");
    // The write holds for x, z, w; slot 3 (DP4 o[HPOS].y) writes y over it.
    let after = out
        .lines()
        .find(|l| l.starts_with("$2 = "))
        .expect("p $HPOS");
    assert!(
        after.starts_with("$2 = {9, ") && after.ends_with(", 7, 6}"),
        "{after}"
    );
    assert!(!after.contains(" 8,"), "{after}");
    assert!(out.contains("$3 = {0, 0, 0, 0}"), "{out}");
    assert!(out.contains("exited normally"), "{out}");
}

#[test]
fn a_standalone_vertex_program_is_served_on_batch_inputs() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    // sce_cube_common.vpo: DP4 o[HPOS].w/.z/.y/.x with c[259..256], one per slot 2..5.
    let program = corpus.path("ps3autotests/sce_cube_common.vpo");
    let (inv, k, _) = rsxtrace_verify::invocation::program_vertex(&program, 300).unwrap();
    let env = inv.environment();
    let expected = rsxtrace_replay::interp::vertex::trace::trace_vertex(
        &inv.program,
        &inv.memory_words,
        &env,
        &inv.inputs[k],
        &rsxtrace_verify::divergence::vertex_stage::interp_options(
            rsxtrace_replay::interp::Arithmetic::F32,
        ),
    )
    .unwrap()
    .output
    .registers[0];
    let (mut child, addr) = serve(&[program.to_str().unwrap(), "--vertex", "300"]);
    let out = gdb(&addr, &["break *5", "continue", "p $HPOS", "continue"]);
    assert!(child.wait().unwrap().success(), "{out}");
    assert!(out.contains("Breakpoint 1, 0x00000005"), "{out}");
    // Before the last DP4 (o[HPOS].x) HPOS.yzw are the interpreter's outputs, x still 0.
    let hpos = out
        .lines()
        .find(|l| l.starts_with("$1 = "))
        .expect("p $HPOS");
    let got: Vec<f64> = hpos
        .trim_start_matches("$1 = {")
        .trim_end_matches('}')
        .split(", ")
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(got[0], 0.0, "{hpos}");
    for c in 1..4 {
        let tolerance = 1e-6 * expected[c].abs().max(1.0);
        assert!(
            (got[c] - expected[c]).abs() <= tolerance,
            "{hpos} vs {expected:?}"
        );
    }
    assert!(out.contains("exited normally"), "{out}");
}
