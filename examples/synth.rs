//! Write a synthetic CSAR of N nodes (see `toscanini::synth`), for
//! measuring the whole `plan` command:
//!
//! ```sh
//! cargo run --release --example synth -- 10000 /tmp/synth-10k.csar
//! /usr/bin/time -v target/release/toscanini plan /tmp/synth-10k.csar -o /tmp/out.csar
//! ```

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [nodes, out] = args.as_slice() else {
        return Err("usage: synth NODES OUTPUT.csar".into());
    };
    let entries = toscanini::synth::xml_csar(nodes.parse()?);
    let bytes =
        toscanini::csar::write::zip_files(entries.iter().map(|(n, d)| (n.as_str(), d.as_slice())))?;
    std::fs::write(out, bytes)?;
    Ok(())
}
