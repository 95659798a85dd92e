fn main() {
    let mut sources = toscanini::diagnostics::SourceMap::new();
    let opts = toscanini::Options::default();
    for arg in std::env::args().skip(1) {
        println!("=== {arg}");
        match toscanini::load(std::path::Path::new(&arg), &opts, &mut sources) {
            Ok(l) => {
                print!(
                    "{}",
                    toscanini::diagnostics::render::render_all(&l.warnings, &sources)
                );
                let reg =
                    toscanini::plugins::Registry::new(toscanini::plugins::Registry::builtin());
                match toscanini::derive(
                    &l.topology,
                    &[
                        toscanini::plan::PlanKind::Build,
                        toscanini::plan::PlanKind::Termination,
                    ],
                    &reg,
                    &opts,
                ) {
                    Ok((plans, d)) => {
                        print!(
                            "{}",
                            toscanini::diagnostics::render::render_all(&d, &sources)
                        );
                        for p in plans {
                            for (a, dec) in p.plan.activities.iter().zip(&p.decisions) {
                                println!("  {} -> {:?}", a.id, dec.plugin);
                            }
                            println!("  inputs {:?}", p.inputs);
                        }
                    }
                    Err(toscanini::error::Error::Input(d)) => print!(
                        "{}",
                        toscanini::diagnostics::render::render_all(&d, &sources)
                    ),
                    Err(e) => println!("{e}"),
                }
            }
            Err(toscanini::error::Error::Input(d)) => print!(
                "{}",
                toscanini::diagnostics::render::render_all(&d, &sources)
            ),
            Err(e) => println!("{e}"),
        }
    }
}
