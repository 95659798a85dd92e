//! Write a synthetic CSAR of N nodes (see `benches/synth.rs`), for
//! measuring the whole `plan` command:
//!
//! ```sh
//! cargo run --release --example synth -- 10000 /tmp/synth-10k.csar [xml|yaml]
//! /usr/bin/time -v target/release/toscanini plan /tmp/synth-10k.csar -o /tmp/out.csar
//! ```

#[path = "../benches/synth.rs"]
mod synth;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (nodes, out, dialect) = match args.as_slice() {
        [n, o] => (n, o, "xml"),
        [n, o, d] => (n, o, d.as_str()),
        _ => return Err("usage: synth NODES OUTPUT.csar [xml|yaml]".into()),
    };
    let entries = match dialect {
        "xml" => synth::xml_csar(nodes.parse()?),
        "yaml" => synth::yaml_csar(nodes.parse()?),
        other => return Err(format!("unknown dialect `{other}`").into()),
    };
    let bytes =
        toscanini::compile::zip_files(entries.iter().map(|(n, d)| (n.as_str(), d.as_slice())))?;
    std::fs::write(out, bytes)?;
    Ok(())
}
