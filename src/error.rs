//! Operational failures: everything that stops a run and is not a problem in
//! the user's TOSCA input (those are [`Diagnostics`]).

use std::path::PathBuf;

use crate::diagnostics::Diagnostics;

/// Why a run could not complete.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input has errors; the diagnostics say which.
    #[error("the input has errors")]
    Input(Diagnostics),
    /// Reading or writing a file failed.
    #[error("{action} `{}`: {source}", path.display())]
    Io {
        /// What we were doing (`cannot read`, `cannot write`, ...).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The command line asks for something that does not exist.
    #[error("{0}")]
    Usage(String),
    /// A bug or an unexpected state inside toscanini.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// An I/O failure on `path`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// The process exit code for this failure: 1 bad input, 2 usage, 3 I/O
    /// or internal.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) => 1,
            Error::Usage(_) => 2,
            Error::Io { .. } | Error::Internal(_) => 3,
        }
    }
}

impl From<Diagnostics> for Error {
    fn from(d: Diagnostics) -> Self {
        Error::Input(d)
    }
}

impl From<crate::diagnostics::Diagnostic> for Error {
    fn from(d: crate::diagnostics::Diagnostic) -> Self {
        Error::Input(d.into())
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
