//! Command-line arguments (clap derive); doc comments are the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Compile TOSCA CSARs (TOSCA 1.0 XML, TOSCA YAML 1.0–1.3 and 2.0) into
/// build, termination and scale-out plans (and plans of imperative
/// workflows) in WS-BPEL 2.0 or BPMN 2.0, written back into the CSAR.
#[derive(Debug, Parser)]
#[command(name = "toscanini", version, max_term_width = 100)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// How problems are printed on stderr: human (text with the source
    /// line) or json (one JSON object per line: code, severity, message,
    /// file, line, column, hint).
    #[arg(
        long,
        value_enum,
        global = true,
        default_value = "human",
        value_name = "FORMAT"
    )]
    pub message_format: MessageFormat,
    /// Print every warning: by default the same warning on four or more
    /// templates is printed once, with the count and the first names
    /// (`--message-format json` always prints every one).
    #[arg(long, global = true)]
    pub verbose: bool,
}

/// `--message-format`.
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
pub(crate) enum MessageFormat {
    /// For people: rustc-style text with a snippet, and a summary line.
    #[default]
    Human,
    /// For editors and CI: one JSON object per diagnostic, one per line.
    Json,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Generate plans and write them into a copy of the CSAR.
    Plan(PlanArgs),
    /// Print a plan graph, or the topology, as DOT or JSON.
    Graph(GraphArgs),
    /// Write one plan as an unpacked engine deployment unit.
    Export(ExportArgs),
    /// List the plugins, or check a plugin file.
    Plugins(PluginsArgs),
}

/// Options shared by every command that compiles an input.
#[derive(Debug, Args)]
pub(crate) struct CompileArgs {
    /// The CSAR: a .csar/.zip file, an unpacked CSAR directory, or a TOSCA YAML file.
    pub input: PathBuf,
    /// The service template to compile, if the entry definitions hold several.
    #[arg(long, value_name = "ID")]
    pub service_template: Option<String>,
    /// Also load the plugin files (*.yaml) in DIR; may be repeated.
    #[arg(long = "plugins", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,
    /// A directory of TOSCA 2.0 profiles: the files in it (and below it)
    /// that declare `profile: NAME` are what `imports: - profile: NAME`
    /// loads; may be repeated.
    #[arg(long = "profiles", value_name = "DIR")]
    pub profile_dirs: Vec<PathBuf>,
    /// Give input NAME of a TOSCA YAML topology the value VALUE (YAML: 5,
    /// [80, 443], '"a: b"') when the plans are made: it takes the place of
    /// every `get_input` of it, and of the input's default where the plans
    /// need a value before they run (a `count`); may be repeated.
    #[arg(long = "input", value_name = "NAME=VALUE", value_parser = name_value)]
    pub inputs: Vec<(String, String)>,
    /// Generate plans even if no plugin handles some template (a warning
    /// instead of an error; such activities do nothing).
    #[arg(long)]
    pub allow_unhandled: bool,
    /// Serialise activities of nodes on the same host (default: serial for
    /// YAML, as TOSCA 1.3 §7.2.3.1 requires; parallel for XML).
    #[arg(long, value_enum, value_name = "MODE")]
    pub same_host: Option<SameHost>,
    /// How relationships of unknown kind order their ends.
    #[arg(long, value_enum, value_name = "ORDER", default_value = "depends-on")]
    pub unknown_relationships: UnknownRelationships,
    /// When connectTo is wrapped in stop/start (seed 004 and OpenTOSCA differ).
    #[arg(long, value_enum, value_name = "READING", default_value = "opentosca")]
    pub non_interruptive: NonInterruptiveArg,
    /// Refuse archives with more entries than this.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_entries: usize,
    /// Refuse entries larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 256 * 1024 * 1024)]
    pub max_entry_size: u64,
    /// Refuse archives larger than this many bytes in total.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024 * 1024)]
    pub max_total_size: u64,
    /// Refuse entries that expand more than this many times (zip bombs).
    #[arg(long, value_name = "RATIO", default_value_t = 200)]
    pub max_compression_ratio: u64,
    /// Refuse documents nested deeper than this.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_depth: usize,
}

/// `--same-host`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum SameHost {
    /// One activity at a time per host.
    Serial,
    /// Only relationships order activities.
    Parallel,
}

/// `--unknown-relationships`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum UnknownRelationships {
    /// Target before source, like DependsOn.
    DependsOn,
    /// No order between the ends.
    Ignore,
}

/// `--non-interruptive`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum NonInterruptiveArg {
    /// Wrap unless connectTo is in the nonInterruptive interface.
    Opentosca,
    /// Wrap only if connectTo is in the nonInterruptive interface.
    Literal,
}

/// Plan languages.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum Lang {
    /// WS-BPEL 2.0 for Apache ODE.
    Bpel,
    /// BPMN 2.0 for Camunda 7 / Operaton.
    Bpmn,
    /// Both (`plan` only): BPEL plans bound to the boundary interface, BPMN plans beside them.
    All,
}

impl Lang {
    /// The languages this choice stands for.
    pub(crate) fn languages(self) -> Vec<toscanini::Language> {
        use toscanini::Language;
        match self {
            Lang::Bpel => vec![Language::Bpel],
            Lang::Bpmn => vec![Language::Bpmn],
            Lang::All => vec![Language::Bpel, Language::Bpmn],
        }
    }
}

/// `toscanini plan`.
#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Where to write the CSAR with plans [default: <input stem>.planned.csar beside the input].
    #[arg(short, long, value_name = "OUTPUT")]
    pub output: Option<PathBuf>,
    /// Write the plans into the input CSAR itself.
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// Which plans: build, termination, scale-out:NAME, scale-out (every
    /// scaling plan), workflow:NAME (a TOSCA YAML imperative workflow),
    /// freeze, defrost, backup, test, update (management features), or all (every
    /// one of them the topology supports).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "all",
        value_name = "PLANS"
    )]
    pub plans: Vec<String>,
    /// Plan language: bpel, bpmn, or all (both).
    #[arg(long, value_enum, default_value = "bpel")]
    pub lang: Lang,
    /// Also generate the plan that turns a running instance of INPUT into
    /// one of TARGET (a CSAR, directory or YAML file; its service template
    /// is the only or first one), added to INPUT's output.
    #[arg(long, value_name = "TARGET")]
    pub transform_to: Option<PathBuf>,
    /// Print, for each activity, which plugin handled it and why the others declined.
    #[arg(long)]
    pub explain: bool,
    /// Print only diagnostics.
    #[arg(short, long)]
    pub quiet: bool,
    /// Indent BPEL plans by nesting depth (by default each element is on a
    /// line of its own, not indented; BPMN plans are written that way either way).
    #[arg(long)]
    pub pretty: bool,
}

/// Output formats of `graph`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum Format {
    /// Graphviz DOT.
    Dot,
    /// JSON.
    Json,
    /// SVG, drawn by Graphviz `dot` (which must be installed).
    Svg,
}

/// `toscanini graph`.
#[derive(Debug, Args)]
pub(crate) struct GraphArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// The plan: build, termination, scale-out:NAME, workflow:NAME, freeze,
    /// defrost, backup, test, update, transformation (with --transform-to).
    #[arg(long, default_value = "build", value_name = "PLAN")]
    pub plan: String,
    /// The target of `--plan transformation` (a CSAR, directory or YAML file).
    #[arg(long, value_name = "TARGET")]
    pub transform_to: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "dot")]
    pub format: Format,
    /// Print the topology instead of a plan.
    #[arg(long)]
    pub topology: bool,
}

/// `toscanini export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// The plan: build, termination, scale-out:NAME, workflow:NAME, freeze,
    /// defrost, backup, test, update, transformation (with --transform-to).
    #[arg(long, value_name = "PLAN")]
    pub plan: String,
    /// The target of `--plan transformation` (a CSAR, directory or YAML file).
    #[arg(long, value_name = "TARGET")]
    pub transform_to: Option<PathBuf>,
    /// The directory to write the deployment unit into (created; must be empty if it exists).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Plan language: bpel or bpmn.
    #[arg(long, value_enum, default_value = "bpel")]
    pub lang: Lang,
    /// Indent BPEL plans by nesting depth (by default each element is on a
    /// line of its own, not indented; BPMN plans are written that way either way).
    #[arg(long)]
    pub pretty: bool,
}

/// `toscanini plugins`.
#[derive(Debug, Args)]
pub(crate) struct PluginsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: PluginsAction,
}

/// Plugin subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum PluginsAction {
    /// List the built-in and loaded plugins in the order they are asked.
    List {
        /// Also load the plugin files in DIR; may be repeated.
        #[arg(long = "plugins", value_name = "DIR")]
        plugin_dirs: Vec<PathBuf>,
    },
    /// Check one plugin file.
    Check {
        /// The plugin file.
        file: PathBuf,
    },
}

/// `NAME=VALUE`, split at the first `=`.
fn name_value(pair: &str) -> Result<(String, String), String> {
    match pair.split_once('=') {
        Some((name, value)) => Ok((name.trim().to_string(), value.trim().to_string())),
        None => Err(format!("`{pair}` is not NAME=VALUE")),
    }
}
