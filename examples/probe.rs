//! Development probe: compile CSARs and write BPEL plans to /tmp/probe-out.
fn main() {
    let mut sources = toscanini::diagnostics::SourceMap::new();
    let opts = toscanini::Options::default();
    let templates = toscanini::render::templates::Templates::embedded().unwrap();
    for arg in std::env::args().skip(1) {
        println!("=== {arg}");
        let loaded = match toscanini::load(std::path::Path::new(&arg), &opts, &mut sources) {
            Ok(l) => l,
            Err(toscanini::error::Error::Input(d)) => {
                print!(
                    "{}",
                    toscanini::diagnostics::render::render_all(&d, &sources)
                );
                continue;
            }
            Err(e) => {
                println!("{e}");
                continue;
            }
        };
        let (reg, _) = toscanini::plugins::Registry::standard(&[], &mut sources).unwrap();
        let kinds = [
            toscanini::plan::PlanKind::Build,
            toscanini::plan::PlanKind::Termination,
        ];
        match toscanini::derive(&loaded.topology, &kinds, &reg, &opts) {
            Ok((plans, d)) => {
                print!(
                    "{}",
                    toscanini::diagnostics::render::render_all(&d, &sources)
                );
                for p in plans {
                    let r =
                        toscanini::render::bpel::render(&p, &loaded.topology, &templates).unwrap();
                    let stem = std::path::Path::new(&arg)
                        .file_stem()
                        .unwrap()
                        .to_string_lossy()
                        .to_string();
                    let dir = format!("/tmp/probe-out/{stem}/{}", r.name);
                    std::fs::create_dir_all(&dir).unwrap();
                    for f in &r.files {
                        std::fs::write(format!("{dir}/{}", f.name), &f.data).unwrap();
                    }
                    println!("  wrote {dir}");
                }
            }
            Err(toscanini::error::Error::Input(d)) => {
                print!(
                    "{}",
                    toscanini::diagnostics::render::render_all(&d, &sources)
                )
            }
            Err(e) => println!("{e}"),
        }
    }
}
