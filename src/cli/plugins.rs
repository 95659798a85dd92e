//! `toscanini plugins list|check`.

use super::args::{PluginsAction, PluginsArgs};
use super::session::Session;
use crate::error::{Error, Result};
use crate::plugins::Registry;

pub fn run(session: &mut Session, a: PluginsArgs) -> Result<()> {
    match a.action {
        PluginsAction::List { plugin_dirs } => {
            let (registry, warnings) = Registry::standard(&plugin_dirs, &mut session.sources)?;
            session.print(&warnings);
            println!(
                "{:<24} {:>8}  {:<10} {:<34} matches",
                "plugin", "priority", "role", "origin"
            );
            for p in registry.plugins() {
                println!(
                    "{:<24} {:>8}  {:<10} {:<34} {}",
                    p.id(),
                    p.priority(),
                    p.role().name(),
                    p.origin(),
                    p.summary()
                );
            }
            Ok(())
        }
        PluginsAction::Check { file } => {
            let text =
                std::fs::read_to_string(&file).map_err(|e| Error::io("cannot read", &file, e))?;
            let name = file.display().to_string();
            let (plugin, diags) =
                crate::plugins::declarative::load_text(&name, &text, &mut session.sources);
            if diags.has_errors() || plugin.is_none() {
                return Err(Error::Input(diags));
            }
            session.print(&diags);
            let p = plugin.unwrap();
            println!("{}: plugin `{}` is valid", name, p.spec.id);
            Ok(())
        }
    }
}
