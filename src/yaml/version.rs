//! `tosca_definitions_version`: which grammar a file is written in.
//!
//! In: the version text. Out: a supported [`Version`], or why it is not
//! supported — other dialects found in the wild (ETSI/tosca-parser NFV
//! profiles, Alien4Cloud's `alien_dsl_*`, unfurl) are named, so that the
//! diagnostic says what the file is rather than only "unknown".

use std::fmt;

/// A supported version of TOSCA YAML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Version {
    /// Simple Profile in YAML 1.0.
    V1_0,
    /// Simple Profile in YAML 1.1.
    V1_1,
    /// Simple Profile in YAML 1.2.
    V1_2,
    /// Simple Profile in YAML 1.3.
    V1_3,
    /// TOSCA 2.0.
    V2_0,
}

impl Version {
    /// Whether this is TOSCA 2.0 (`service_template`, `$` functions, profiles).
    pub(crate) fn is_v2(self) -> bool {
        self == Version::V2_0
    }

    /// The canonical short name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Version::V1_0 => "tosca_simple_yaml_1_0",
            Version::V1_1 => "tosca_simple_yaml_1_1",
            Version::V1_2 => "tosca_simple_yaml_1_2",
            Version::V1_3 => "tosca_simple_yaml_1_3",
            Version::V2_0 => "tosca_2_0",
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a version text says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Detected {
    /// A supported version.
    Supported(Version),
    /// A supported version written in a non-standard way (accepted with a warning).
    Lenient(Version, String),
    /// A dialect toscanini recognises but does not read; the text says why.
    Unsupported(String),
    /// Nothing known.
    Unknown,
}

/// Classify a `tosca_definitions_version` value.
pub(crate) fn detect(text: &str) -> Detected {
    let t = text.trim();
    let simple = |v: &str| match v {
        "1_0" | "1.0" => Some(Version::V1_0),
        "1_1" | "1.1" => Some(Version::V1_1),
        "1_2" | "1.2" => Some(Version::V1_2),
        "1_3" | "1.3" => Some(Version::V1_3),
        _ => None,
    };
    if let Some(v) = t.strip_prefix("tosca_simple_yaml_").and_then(simple) {
        return Detected::Supported(v);
    }
    if let Some(v) = t
        .strip_prefix("http://docs.oasis-open.org/tosca/ns/simple/yaml/")
        .and_then(simple)
    {
        return Detected::Supported(v);
    }
    if t == "tosca_2_0" || t == "http://docs.oasis-open.org/tosca/ns/2.0" {
        return Detected::Supported(Version::V2_0);
    }
    // The 1.3 text itself once writes `tosca_simple_yaml_1_2_0`.
    if let Some(v) = t
        .strip_prefix("tosca_simple_yaml_")
        .and_then(|r| r.strip_suffix("_0"))
        .and_then(simple)
    {
        return Detected::Lenient(v, format!("`{t}` is not a TOSCA version; read as `{v}`"));
    }
    if t.starts_with("tosca_simple_profile_for_nfv")
        || t.starts_with("tosca_simple_profile_for_etsi")
    {
        return Detected::Unsupported(format!(
            "`{t}` is a TOSCA NFV profile (tosca-parser/ETSI), which adds its own grammar and types; toscanini reads the Simple Profile (tosca_simple_yaml_1_0 … 1_3) and TOSCA 2.0"
        ));
    }
    if t.starts_with("alien_dsl_") {
        return Detected::Unsupported(format!(
            "`{t}` is Alien4Cloud's DSL (also read by Yorc): its imports name archives in an Alien4Cloud catalog (`name:version`, `<builtin.yml>`), which toscanini cannot resolve offline"
        ));
    }
    if t.starts_with("tosca_simple_unfurl") {
        return Detected::Unsupported(format!(
            "`{t}` is unfurl's dialect of TOSCA (ensembles, repository imports with fragments), which toscanini does not read"
        ));
    }
    Detected::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_versions_and_dialects() {
        assert_eq!(
            detect("tosca_simple_yaml_1_3"),
            Detected::Supported(Version::V1_3)
        );
        assert_eq!(
            detect("http://docs.oasis-open.org/tosca/ns/simple/yaml/1.3"),
            Detected::Supported(Version::V1_3)
        );
        assert_eq!(detect("tosca_2_0"), Detected::Supported(Version::V2_0));
        assert!(matches!(
            detect("tosca_simple_yaml_1_2_0"),
            Detected::Lenient(Version::V1_2, _)
        ));
        assert!(matches!(
            detect("alien_dsl_2_0_0"),
            Detected::Unsupported(_)
        ));
        assert!(matches!(
            detect("tosca_simple_profile_for_nfv_1_0_0"),
            Detected::Unsupported(_)
        ));
        assert_eq!(detect("tosca_simple_yaml_9"), Detected::Unknown);
    }
}
