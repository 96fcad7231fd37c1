//! scratch baseline
use std::path::{Path, PathBuf};
use rsxtrace_program::container::Container;
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, shade};
use rsxtrace_replay::texture::NoTextures;

fn corpus() -> PathBuf { PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/ps3autotests") }

fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("open png"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        other => panic!("{other:?}"),
    };
    (info.width, info.height, rgba)
}
fn agree(a: &[u8], b: &[u8], tol: u8) -> f64 {
    let mut n = 0usize;
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        if p.iter().zip(q).take(3).all(|(x, y)| x.abs_diff(*y) <= tol) { n += 1; }
    }
    100.0 * n as f64 / (a.len() / 4) as f64
}
#[test]
fn baseline() {
    for t in 1..=5 {
        let name = format!("rsx_fp_static_test{t}");
        let bytes = std::fs::read(corpus().join(format!("{name}.fpo"))).unwrap();
        let c = Container::parse(&bytes).unwrap();
        for p in c.parameters() {
            println!("{name} param {:?} {:?} default {:?} slots {:?}", p.name, p.semantic, p.default_value, p.name.and_then(|n| c.embedded_constants(n)));
        }
        let loaded = load_program_file(corpus().join(format!("{name}.fpo")), &[]).unwrap();
        println!("{name}: {} instructions control {:#x}", loaded.program.instructions.len(), loaded.control);
        let img = shade(&loaded.program, loaded.control, 720, 480, &NoTextures, Arithmetic::F32).unwrap();
        img.write_png(format!("/tmp/fp16/{name}.base.png")).unwrap();
        let exp = corpus().join(format!("{name}.expected.png"));
        if exp.exists() {
            let (_, _, e) = read_png(&exp);
            println!("{name}: exact {:.3}% within1 {:.3}% within3 {:.3}%", agree(&img.rgba8, &e, 0), agree(&img.rgba8, &e, 1), agree(&img.rgba8, &e, 3));
        }
    }
}
