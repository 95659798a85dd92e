//! Limits that protect against hostile archives (zip bombs, huge inputs).

/// Upper bounds applied while reading an input. All are configurable from
/// the command line; the defaults are far above any real CSAR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum number of entries in the archive or directory.
    pub max_entries: usize,
    /// Maximum uncompressed size of one entry, in bytes.
    pub max_entry_size: u64,
    /// Maximum uncompressed size of all entries together, in bytes.
    pub max_total_size: u64,
    /// Maximum ratio of uncompressed to compressed size of one entry
    /// (checked for entries larger than 1 MiB).
    pub max_compression_ratio: u64,
    /// Maximum element nesting depth in XML and YAML documents.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_entries: 20_000,
            max_entry_size: 256 * 1024 * 1024,
            max_total_size: 1024 * 1024 * 1024,
            max_compression_ratio: 200,
            max_depth: 256,
        }
    }
}
