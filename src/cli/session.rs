//! What every command shares: the source map for diagnostics, turning
//! arguments into [`Options`], loading plugins, printing diagnostics.

use std::io::Write;

use super::args::{CompileArgs, MessageFormat, NonInterruptiveArg, SameHost, UnknownRelationships};
use toscanini::Layout;
use toscanini::Limits;
use toscanini::Options;
use toscanini::diagnostics::{Diagnostics, SourceMap, render};
use toscanini::error::Error;
use toscanini::plan::UnknownOrdering;
use toscanini::plugins::CompleteOptions;
use toscanini::plugins::api::NonInterruptive;

/// State of one command run.
pub(super) struct Session {
    /// Every source file read, for snippets.
    pub sources: SourceMap,
    /// How problems are printed.
    format: Printing,
}

/// How diagnostics are printed: the format, and for text whether every
/// warning is printed (`--verbose`) or the same one on many templates once.
#[derive(Clone, Copy)]
struct Printing {
    format: MessageFormat,
    verbose: bool,
}

impl Session {
    pub(super) fn new(format: MessageFormat, verbose: bool) -> Session {
        Session {
            sources: SourceMap::new(),
            format: Printing { format, verbose },
        }
    }

    /// Print diagnostics (warnings, or errors of a failed run) to stderr.
    pub(super) fn print(&self, diags: &Diagnostics) {
        print(self.format, diags, &self.sources);
    }

    /// A [`Report`](toscanini::compile::Report) sink that prints, and the
    /// sources it reads (the library fills them as it reads the input).
    pub(super) fn reporting(
        &mut self,
    ) -> (&mut SourceMap, impl FnMut(&Diagnostics, &SourceMap) + use<>) {
        let format = self.format;
        (&mut self.sources, move |d: &Diagnostics, s: &SourceMap| {
            print(format, d, s)
        })
    }

    /// Print a failure and return its exit code.
    pub(super) fn report(&self, e: Error) -> u8 {
        match &e {
            Error::Input(d) => {
                self.print(d);
                if !d.has_errors() {
                    self.fail("the input has problems");
                }
            }
            other => self.fail(&other.to_string()),
        }
        e.exit_code()
    }

    /// Print a failure that is not a diagnostic.
    fn fail(&self, message: &str) {
        let text = match self.format.format {
            MessageFormat::Human => format!("error: {message}\n"),
            MessageFormat::Json => render::json_failure(message),
        };
        let _ = std::io::stderr().write_all(text.as_bytes());
    }

    /// Options from the command line of a command that writes plans
    /// (`plan`, `export`): indented with `--pretty`.
    pub(super) fn writing_options(&self, a: &CompileArgs, pretty: bool) -> Options {
        Options {
            layout: if pretty {
                Layout::Pretty
            } else {
                Layout::Compact
            },
            ..self.options(a)
        }
    }

    /// Options from the command line.
    pub(super) fn options(&self, a: &CompileArgs) -> Options {
        Options {
            limits: Limits {
                max_entries: a.max_entries,
                max_entry_size: a.max_entry_size,
                max_total_size: a.max_total_size,
                max_compression_ratio: a.max_compression_ratio,
                max_depth: a.max_depth,
            },
            service_template: a.service_template.clone(),
            profiles: a.profile_dirs.clone(),
            inputs: a.inputs.clone(),
            same_host_serial: a.same_host.map(|s| matches!(s, SameHost::Serial)),
            unknown_relationships: Some(match a.unknown_relationships {
                UnknownRelationships::DependsOn => UnknownOrdering::DependsOn,
                UnknownRelationships::Ignore => UnknownOrdering::Ignore,
            }),
            complete: CompleteOptions {
                plugins: toscanini::plugins::api::PluginOptions {
                    non_interruptive: match a.non_interruptive {
                        NonInterruptiveArg::Opentosca => NonInterruptive::OpenTosca,
                        NonInterruptiveArg::Literal => NonInterruptive::Literal,
                    },
                },
                allow_unhandled: a.allow_unhandled,
                // Only `plan --explain` prints the decision log.
                brief: true,
            },
            // `plan` and `export` say otherwise with --pretty.
            layout: Layout::Compact,
        }
    }
}

/// Print `diags` to stderr in `format`.
fn print(printing: Printing, diags: &Diagnostics, sources: &SourceMap) {
    if diags.is_empty() {
        return;
    }
    let text = match printing.format {
        MessageFormat::Human if printing.verbose => render::render_all(diags, sources),
        MessageFormat::Human => render::render_grouped(diags, sources),
        MessageFormat::Json => render::json_lines(diags),
    };
    let _ = std::io::stderr().write_all(text.as_bytes());
}
