//! The plugin loader on arbitrary files; a file that loads is then used,
//! with the built-in plugins, on two small topologies (nodes on a server,
//! a relationship with operations of its own).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toscanini::Csar;
use toscanini::diagnostics::SourceMap;
use toscanini::plugins::Registry;
use toscanini::plugins::api::Plugin;

#[path = "common.rs"]
mod common;

const TOPOLOGIES: [&str; 2] = [
    include_str!("../../samples/static-website/Definitions/website.tosca"),
    include_str!("../../tests/plugins/relationship-configure/Definitions/app.tosca"),
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let (plugin, diags) = toscanini::plugins::declarative::load_text("fuzz.yaml", text, &mut sources);
    let _ = toscanini::diagnostics::render::render_all(&diags, &sources);
    let Some(plugin) = plugin else {
        return;
    };
    let mut plugins: Vec<Box<dyn Plugin>> = Registry::builtin();
    plugins.push(Box::new(plugin));
    let registry = Registry::new(plugins);
    for definitions in TOPOLOGIES {
        let csar = Csar::from_entries(
            "fuzz",
            [
                (
                    "TOSCA-Metadata/TOSCA.meta".to_string(),
                    b"Entry-Definitions: Definitions/app.tosca\n".to_vec(),
                ),
                ("Definitions/app.tosca".to_string(), definitions.as_bytes().to_vec()),
            ],
        );
        common::compile_with(csar, &registry);
    }
});
