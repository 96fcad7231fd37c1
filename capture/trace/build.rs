//! Build script: only with the `regen-schema` feature, regenerates the checked-in Cap'n Proto
//! code (`src/generated/trace_capnp.rs`) from `traces/schema/trace.capnp` with capnpc.
//! Without the feature it does nothing, so ordinary builds need neither capnpc nor `capnp`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "regen-schema")]
    regen();
}

#[cfg(feature = "regen-schema")]
fn regen() {
    let manifest = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let schema_dir = manifest.join("../../traces/schema");
    println!(
        "cargo:rerun-if-changed={}",
        schema_dir.join("trace.capnp").display()
    );
    capnpc::CompilerCommand::new()
        .src_prefix(&schema_dir)
        .file(schema_dir.join("trace.capnp"))
        .output_path(manifest.join("src/generated"))
        .run()
        .expect("capnp schema compilation failed (is the `capnp` tool on PATH?)");
}
