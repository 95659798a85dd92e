//! `toscanini plugins list|check`.

use std::fmt::Write as _;

use super::args::{PluginsAction, PluginsArgs};
use super::session::Session;
use toscanini::error::{Error, Result};
use toscanini::plugins::Registry;

pub(super) fn run(session: &mut Session, a: PluginsArgs) -> Result<()> {
    match a.action {
        PluginsAction::List { plugin_dirs } => {
            let (registry, warnings) = Registry::standard(&plugin_dirs, &mut session.sources)?;
            session.print(&warnings);
            // Columns as wide as their longest entry: origins of user
            // plugins are paths of any length.
            let plugins = registry.plugins();
            let width = |f: &dyn Fn(&dyn toscanini::plugins::api::Plugin) -> usize, min: usize| {
                plugins.iter().map(|p| f(p.as_ref())).fold(min, usize::max)
            };
            let id_w = width(&|p| p.id().len(), "plugin".len());
            let origin_w = width(&|p| p.origin().len(), "origin".len());
            let mut out = format!(
                "{:<id_w$} {:>8}  {:<10} {:<origin_w$} matches\n",
                "plugin", "priority", "role", "origin"
            );
            for p in plugins {
                let _ = writeln!(
                    out,
                    "{:<id_w$} {:>8}  {:<10} {:<origin_w$} {}",
                    p.id(),
                    p.priority(),
                    p.role().name(),
                    p.origin(),
                    p.summary()
                );
            }
            super::write_stdout(&out)
        }
        PluginsAction::Check { file } => {
            let text =
                std::fs::read_to_string(&file).map_err(|e| Error::io("cannot read", &file, e))?;
            let name = file.display().to_string();
            let (plugin, diags) =
                toscanini::plugins::declarative::load_text(&name, &text, &mut session.sources);
            if diags.has_errors() || plugin.is_none() {
                return Err(Error::Input(diags));
            }
            session.print(&diags);
            let p = plugin.unwrap();
            super::write_stdout(format!("{}: plugin `{}` is valid\n", name, p.spec.id))
        }
    }
}
