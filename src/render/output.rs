//! Where a backend writes a plan's files: kept as files (export, tests,
//! previews), or packed straight into the plan archive as they are
//! written, so that the text of a large plan is never held whole (a 100k
//! node topology makes a process of gigabytes; its archive is a fraction).
//! The archive is built in memory, or, for output to disk, in a spool
//! file beside the output, so that memory stays flat whatever the size.

use std::io::{BufWriter, Cursor};

use crate::csar::write::{Spool, ZipBuilder};
use crate::error::{Error, Result};

use super::PlanFile;

/// A plan's files, as they are written.
pub enum PlanOutput {
    /// Keep every file.
    Files(Vec<PlanFile>, Option<(String, Vec<u8>)>),
    /// Pack every file into an archive in memory.
    Archive(ZipBuilder<Cursor<Vec<u8>>>),
    /// Pack every file into an archive in a spool file.
    Spooled(ZipBuilder<BufWriter<std::fs::File>>, Spool),
}

/// A packed plan archive.
#[derive(Clone, Debug)]
pub enum Packed {
    /// In memory.
    Bytes(Vec<u8>),
    /// In a spool file.
    Spooled(Spool),
}

/// What was written.
pub enum Written {
    /// The files.
    Files(Vec<PlanFile>),
    /// The archive.
    Packed(Packed),
}

/// A streamed file is handed on once this much text has collected.
pub const CHUNK: usize = 1 << 20;

impl PlanOutput {
    /// Keep the files.
    pub fn files() -> PlanOutput {
        PlanOutput::Files(Vec::new(), None)
    }

    /// Pack the files into an archive in memory.
    pub fn archive() -> PlanOutput {
        PlanOutput::Archive(ZipBuilder::new(Cursor::new(Vec::new())))
    }

    /// Pack the files into an archive in a spool file beside `near`.
    pub fn spooled(near: &std::path::Path, label: &str) -> Result<PlanOutput> {
        let (spool, file) = Spool::create(near, label)?;
        Ok(PlanOutput::Spooled(
            ZipBuilder::new(BufWriter::with_capacity(1 << 16, file)),
            spool,
        ))
    }

    /// A whole file.
    pub fn file(&mut self, name: &str, data: &[u8]) -> Result<()> {
        match self {
            PlanOutput::Files(files, _) => {
                files.push(PlanFile {
                    name: name.to_string(),
                    data: data.to_vec(),
                });
                Ok(())
            }
            PlanOutput::Archive(zip) => zip.file(name, data),
            PlanOutput::Spooled(zip, _) => zip.file(name, data),
        }
    }

    /// Start a file written in pieces with [`PlanOutput::write`].
    pub fn start(&mut self, name: &str) -> Result<()> {
        match self {
            PlanOutput::Files(_, current) => {
                *current = Some((name.to_string(), Vec::new()));
                Ok(())
            }
            PlanOutput::Archive(zip) => zip.start(name),
            PlanOutput::Spooled(zip, _) => zip.start(name),
        }
    }

    /// Append to the file started last.
    pub fn write(&mut self, text: &str) -> Result<()> {
        match self {
            PlanOutput::Files(_, Some((_, data))) => {
                data.extend_from_slice(text.as_bytes());
                Ok(())
            }
            PlanOutput::Files(_, None) => Err(Error::Internal(
                "plan output: write without a started file".into(),
            )),
            PlanOutput::Archive(zip) => zip.write(text.as_bytes()),
            PlanOutput::Spooled(zip, _) => zip.write(text.as_bytes()),
        }
    }

    /// End the file started last.
    pub fn end(&mut self) -> Result<()> {
        if let PlanOutput::Files(files, current) = self
            && let Some((name, data)) = current.take()
        {
            files.push(PlanFile { name, data });
        }
        Ok(())
    }

    /// Everything written.
    pub fn finish(self) -> Result<Written> {
        Ok(match self {
            PlanOutput::Files(files, _) => Written::Files(files),
            PlanOutput::Archive(zip) => Written::Packed(Packed::Bytes(zip.finish()?.into_inner())),
            PlanOutput::Spooled(zip, spool) => {
                let file = zip.finish()?;
                file.into_inner()
                    .map_err(|e| Error::io("cannot write", spool.path(), e.into_error()))?;
                Written::Packed(Packed::Spooled(spool))
            }
        })
    }
}
