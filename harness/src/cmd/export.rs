//! `rsxtrace export gltf`: draws as one glTF 2.0 binary, a mesh per draw
//! (`rsxtrace_verify::workbench::gltf`). Draws and attributes that cannot be exported are
//! named in warnings (`skipped` in JSON) and the rest is written; exit 0, or 2 when no draw
//! could be exported.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_verify::probe::placement::read_view_projection;
use rsxtrace_verify::workbench::gltf::{export_gltf, parse_mapping, ExportOptions, Mapping, Space};
use std::path::PathBuf;

/// `rsxtrace export ...`.
#[derive(Subcommand, Debug)]
pub enum ExportCommand {
    /// Draws as one glTF 2.0 binary (.glb): a mesh per draw, primitives as lists, attributes
    /// decoded to floats, textures as embedded PNG materials.
    Gltf(GltfArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceArg {
    /// The vertex program's position output (HPOS / w), run on the reference interpreter.
    Clip,
    /// An input attribute (--attr position=N, else attribute 0).
    Object,
    /// The vertex program's position output taken back through the inverse of the camera's
    /// view-projection (--view-proj): every mesh where the game placed it.
    World,
}

#[derive(Args, Debug)]
pub struct GltfArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Export draws A..B (B excluded; A..=B, A.., or N alone); all draws by default.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
    /// Where positions come from.
    #[arg(long, value_enum, default_value_t = SpaceArg::Clip)]
    pub space: SpaceArg,
    /// With --space world: the camera's view-projection, row-vector convention, as `mvp`
    /// reads it ({"view_projection": [4 rows]}, four rows, or 16 numbers; the JSON `mvp
    /// --json` prints holds the one it estimated).
    #[arg(long = "view-proj")]
    pub view_proj: Option<PathBuf>,
    /// Map an input attribute to a glTF attribute: NAME=N with NAME one of position, normal,
    /// color0, color1, texcoord0..texcoord7 (repeatable). Attributes not mapped are guessed
    /// (0 position, 2 normal, 3 and 4 colours, 8..15 texture coordinates) and marked as guesses.
    #[arg(long = "attr", value_parser = parse_mapping)]
    pub attrs: Vec<Mapping>,
    /// Print the export report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(command: &ExportCommand) -> anyhow::Result<Status> {
    match command {
        ExportCommand::Gltf(args) => gltf(args),
    }
}

fn gltf(args: &GltfArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = super::load_frame(&args.file)?;
    // A range running past the last draw is exported as far as it goes (the rest is named);
    // one that starts past it is refused as the other commands refuse it.
    let draws = match args.draws {
        Some(r) if r.start >= frame.draws.len() => {
            if let Err(e) = r.resolve(frame.draws.len()) {
                anyhow::bail!(e);
            }
            r.start..r.start
        }
        Some(r) => r.start..r.end.unwrap_or(frame.draws.len()),
        None => 0..frame.draws.len(),
    };
    // One attribute per name: a second `--attr NAME=N` would silently replace the first.
    for (k, m) in args.attrs.iter().enumerate() {
        let same = |o: &&Mapping| match (o.target, m.target) {
            (Some(a), Some(b)) => a == b,
            _ => o.name == m.name,
        };
        if let Some(first) = args.attrs[..k].iter().find(same) {
            anyhow::bail!(
                "--attr {}={} and --attr {}={}: one attribute per name",
                first.name,
                first.attribute,
                m.name,
                m.attribute
            );
        }
    }
    let options = ExportOptions {
        draws,
        space: match args.space {
            SpaceArg::Clip => Space::Clip,
            SpaceArg::Object => Space::Object,
            SpaceArg::World => Space::World,
        },
        mappings: args.attrs.clone(),
        view_projection: match &args.view_proj {
            Some(path) => Some(
                read_view_projection(path)
                    .with_context(|| format!("view-projection file {}", path.display()))?,
            ),
            None => None,
        },
    };
    let capture = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("export {bar:30} {pos}/{len} draws {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let export = export_gltf(&frame, &capture, &options, Some(&bar))
        .with_context(|| format!("cannot export {}", args.file.display()))?;
    bar.finish_and_clear();
    std::fs::write(&args.out, &export.glb)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let report = &export.report;
    if args.json {
        print_json(report)?;
        return Ok(Status::Success);
    }
    let mut t = Table::new(&[
        ">draw",
        "primitive",
        ">vertices",
        ">primitives",
        "attributes",
        "textures",
    ]);
    for m in &report.meshes {
        let attributes: Vec<String> = m
            .attributes
            .iter()
            .map(|a| {
                let from = match (a.attribute, a.output) {
                    (Some(n), _) => format!("a{n}"),
                    (None, Some(o)) => o.to_string(),
                    _ => "?".into(),
                };
                format!("{}={from}{}", a.gltf, if a.guess { "?" } else { "" })
            })
            .collect();
        let units: Vec<String> = m.textures.iter().map(u8::to_string).collect();
        t.row(vec![
            m.draw.to_string(),
            format!("{} -> {:?}", m.primitive, m.mode).to_lowercase(),
            m.vertices.to_string(),
            m.primitives.to_string(),
            attributes.join(" "),
            if units.is_empty() {
                "-".into()
            } else {
                units.join(" ")
            },
        ]);
    }
    out!("{}", t.render());
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    for m in &report.meshes {
        for w in &m.warnings {
            eprintln!("warning: draw {}: {w}", m.draw);
        }
    }
    for s in &report.skipped {
        eprintln!("warning: draw {} left out: {}", s.draw, s.reason);
    }
    outln!(
        "wrote {} ({} meshes, {} bytes); attributes marked ? are guesses",
        args.out.display(),
        report.meshes.len(),
        report.bytes
    );
    Ok(Status::Success)
}
