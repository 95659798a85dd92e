//! Where a backend writes a plan's files: kept as files (export, tests,
//! previews), or packed straight into the plan archive as they are
//! written, so that the text of a large plan is never held whole (a 100k
//! node topology makes a process of gigabytes; its archive is a fraction).
//! The archive is built in memory, or, for output to disk, in a spool
//! file beside the output, so that memory stays flat whatever the size.

use std::io::{BufWriter, Cursor};

use crate::csar::write::{Spool, ZipBuilder};
use crate::error::{Error, Result};

/// One file of a rendered plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanFile {
    /// File name inside the plan archive.
    pub name: String,
    /// Contents.
    pub data: Vec<u8>,
}

/// A plan's files, as they are written.
pub(crate) enum PlanOutput {
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
pub(crate) enum Written {
    /// The files.
    Files(Vec<PlanFile>),
    /// The archive.
    Packed(Packed),
}

/// A streamed file is handed on once this much text has collected. The
/// buffers in flight (the renderer's, the queue's, the spare ones) are
/// memory touched for the first time, a page fault per 4 KiB: with 1 MiB
/// pieces they were half the resident peak of a 1,002-node run.
pub(crate) const CHUNK: usize = 1 << 18;

impl PlanOutput {
    /// Keep the files.
    pub(crate) fn files() -> PlanOutput {
        PlanOutput::Files(Vec::new(), None)
    }

    /// Pack the files into an archive in memory.
    pub(crate) fn archive() -> PlanOutput {
        PlanOutput::Archive(ZipBuilder::new(Cursor::new(Vec::new())))
    }

    /// Pack the files into an archive in a spool file beside `near`.
    pub(crate) fn spooled(near: &std::path::Path, label: &str) -> Result<PlanOutput> {
        let (spool, file) = Spool::create(near, label)?;
        Ok(PlanOutput::Spooled(
            ZipBuilder::new(BufWriter::with_capacity(1 << 16, file)),
            spool,
        ))
    }

    /// A whole file.
    pub(crate) fn file(&mut self, name: &str, data: &[u8]) -> Result<()> {
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
    pub(crate) fn start(&mut self, name: &str) -> Result<()> {
        match self {
            PlanOutput::Files(_, current) => {
                *current = Some((name.to_string(), Vec::new()));
                Ok(())
            }
            PlanOutput::Archive(zip) => zip.start(name),
            PlanOutput::Spooled(zip, _) => zip.start(name),
        }
    }

    /// Append `text` to the file started last, leaving `text` empty. A
    /// packed file takes the buffer itself (and leaves a recycled one).
    pub(crate) fn write(&mut self, text: &mut String) -> Result<()> {
        let capacity = text.capacity();
        let mut bytes = std::mem::take(text).into_bytes();
        let done = match self {
            PlanOutput::Files(_, Some((_, data))) => {
                data.extend_from_slice(&bytes);
                Ok(())
            }
            PlanOutput::Files(_, None) => Err(Error::Internal(
                "plan output: write without a started file".into(),
            )),
            PlanOutput::Archive(zip) => zip.write(&mut bytes, capacity),
            PlanOutput::Spooled(zip, _) => zip.write(&mut bytes, capacity),
        };
        // An empty buffer is valid UTF-8 whatever was in it before.
        bytes.clear();
        *text = String::from_utf8(bytes).unwrap_or_default();
        done
    }

    /// End the file started last.
    pub(crate) fn end(&mut self) -> Result<()> {
        if let PlanOutput::Files(files, current) = self
            && let Some((name, data)) = current.take()
        {
            files.push(PlanFile { name, data });
        }
        Ok(())
    }

    /// Everything written.
    pub(crate) fn finish(self) -> Result<Written> {
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

/// Text set aside while a file is written, to be put into it later in the
/// pieces it was set aside in (the diagrams of a BPMN plan's activities,
/// which follow its whole process). In memory, or in a spool file when the
/// plan itself is spooled, so that memory stays flat there too.
pub(crate) enum Aside {
    /// In memory.
    Memory(Vec<u8>),
    /// In a spool file (removed when dropped).
    File(BufWriter<std::fs::File>, Spool),
}

impl Aside {
    /// Where to set text aside while writing into `output`.
    pub(crate) fn for_output(output: &PlanOutput) -> Result<Aside> {
        match output {
            PlanOutput::Spooled(_, spool) => {
                let (aside, file) = Spool::create(spool.path(), "aside")?;
                Ok(Aside::File(BufWriter::with_capacity(1 << 16, file), aside))
            }
            _ => Ok(Aside::Memory(Vec::new())),
        }
    }

    /// Set `text` aside.
    pub(crate) fn push(&mut self, text: &str) -> Result<()> {
        use std::io::Write as _;
        match self {
            Aside::Memory(bytes) => {
                bytes.extend_from_slice(text.as_bytes());
                Ok(())
            }
            Aside::File(file, spool) => file
                .write_all(text.as_bytes())
                .map_err(|e| Error::io("cannot write", spool.path(), e)),
        }
    }

    /// Read back what was set aside, from the start.
    pub(crate) fn read_back(self) -> Result<AsideReader> {
        use std::io::{Seek as _, SeekFrom};
        match self {
            Aside::Memory(bytes) => Ok(AsideReader::Memory(bytes, 0)),
            Aside::File(file, spool) => {
                let mut file = file
                    .into_inner()
                    .map_err(|e| Error::io("cannot write", spool.path(), e.into_error()))?;
                file.seek(SeekFrom::Start(0))
                    .map_err(|e| Error::io("cannot read", spool.path(), e))?;
                Ok(AsideReader::File(
                    std::io::BufReader::with_capacity(1 << 16, file),
                    spool,
                    Vec::new(),
                ))
            }
        }
    }
}

/// What was set aside, read back piece by piece.
pub(crate) enum AsideReader {
    /// In memory, and how much of it was read.
    Memory(Vec<u8>, usize),
    /// In a spool file, and a buffer for one piece.
    File(std::io::BufReader<std::fs::File>, Spool, Vec<u8>),
}

impl AsideReader {
    /// Append the next `len` bytes (a piece set aside whole) to `out`.
    pub(crate) fn next_into(&mut self, len: usize, out: &mut String) -> Result<()> {
        use std::io::Read as _;
        let piece: &[u8] = match self {
            AsideReader::Memory(bytes, at) => {
                let piece = bytes
                    .get(*at..*at + len)
                    .ok_or_else(|| Error::Internal("text set aside is missing".into()))?;
                *at += len;
                piece
            }
            AsideReader::File(file, spool, buf) => {
                buf.resize(len, 0);
                file.read_exact(buf)
                    .map_err(|e| Error::io("cannot read", spool.path(), e))?;
                buf
            }
        };
        let piece = std::str::from_utf8(piece)
            .map_err(|_| Error::Internal("text set aside is not UTF-8".into()))?;
        out.push_str(piece);
        Ok(())
    }
}
