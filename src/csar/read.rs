//! Reading archives and directories under [`Limits`].

use std::collections::BTreeMap;
use std::io::{Cursor, Read};
use std::path::Path;
use std::sync::Arc;

use super::{Content, Csar, Limits, Origin, path};
use crate::diagnostics::{Diagnostic, Diagnostics, Location, codes};
use crate::error::{Error, Result};

pub(super) fn open(input: &Path, limits: &Limits) -> Result<Csar> {
    let meta = std::fs::symlink_metadata(input).map_err(|e| Error::io("cannot open", input, e))?;
    if meta.is_dir() {
        return open_dir(input, limits);
    }
    if meta.file_type().is_symlink() {
        // Follow a symlink given on the command line: the user named it.
        let target =
            std::fs::canonicalize(input).map_err(|e| Error::io("cannot open", input, e))?;
        return open(&target, limits);
    }
    let bytes = read_limited_file(input, limits)?;
    let ext = input
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if bytes.starts_with(b"PK") {
        return open_zip(input, bytes, limits);
    }
    if ext == "yaml" || ext == "yml" {
        let name = input
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut entries = BTreeMap::new();
        entries.insert(name, Content::new(bytes));
        return Ok(Csar {
            path: input.to_path_buf(),
            origin: Origin::File,
            entries,
            limits: limits.clone(),
        });
    }
    Err(input_error(
        Diagnostic::error(
            codes::CSAR_UNREADABLE,
            format!(
                "`{}` is not a CSAR: it is neither a zip archive nor a directory nor a YAML file",
                input.display()
            ),
        )
        .at(Location::file(input.display().to_string()))
        .hint("pass a .csar/.zip archive, an unpacked CSAR directory, or a .yaml service template"),
    ))
}

pub(super) fn read_limited_file(path: &Path, limits: &Limits) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io("cannot read", path, e))?;
    let mut bytes = Vec::new();
    file.take(limits.max_total_size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", path, e))?;
    if bytes.len() as u64 > limits.max_total_size {
        return Err(input_error(limit(
            path,
            format!(
                "is larger than the limit of {} bytes",
                limits.max_total_size
            ),
            "--max-total-size",
        )));
    }
    Ok(bytes)
}

fn input_error(d: Diagnostic) -> Error {
    Error::Input(Diagnostics::from(d))
}

fn limit(path: &Path, what: String, flag: &str) -> Diagnostic {
    Diagnostic::error(codes::CSAR_LIMIT, format!("`{}` {what}", path.display()))
        .at(Location::file(path.display().to_string()))
        .hint(format!(
            "if the input is trusted, raise the limit with {flag}"
        ))
}

/// Read a zip archive: every entry is checked (name, kind, declared and
/// real size, compression ratio) and every problem reported, before the
/// archive is refused.
pub(super) fn open_zip(input: &Path, bytes: Vec<u8>, limits: &Limits) -> Result<Csar> {
    let bytes: Arc<[u8]> = Arc::from(bytes.into_boxed_slice());
    let file_loc = Location::file(input.display().to_string());
    let mut archive = zip::ZipArchive::new(Cursor::new(&bytes[..])).map_err(|e| {
        input_error(
            Diagnostic::error(
                codes::CSAR_UNREADABLE,
                format!("`{}` is not a readable zip archive: {e}", input.display()),
            )
            .at(file_loc.clone())
            .hint("the file is damaged or incomplete; export or download the CSAR again"),
        )
    })?;
    if archive.len() > limits.max_entries {
        return Err(input_error(limit(
            input,
            format!(
                "has {} entries, more than the limit of {}",
                archive.len(),
                limits.max_entries
            ),
            "--max-entries",
        )));
    }
    let mut diags = Diagnostics::new();
    let mut entries = BTreeMap::new();
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let Some(ZipEntry {
            raw_name,
            name,
            data,
        }) = read_entry(&mut archive, i, input, limits, &mut diags)
        else {
            continue;
        };
        total += data.len() as u64;
        if total > limits.max_total_size {
            diags.push(limit(
                input,
                format!(
                    "expands beyond the limit of {} bytes in total",
                    limits.max_total_size
                ),
                "--max-total-size",
            ));
            break;
        }
        // Two raw names that normalise to one (`a//b`, `./a/b`) collide here.
        if entries.insert(name.clone(), Content::new(data)).is_some() {
            diags.push(
                Diagnostic::error(
                    codes::CSAR_DUPLICATE_ENTRY,
                    format!("zip entries `{raw_name}` and another one both name `{name}`"),
                )
                .at(file_loc.clone()),
            );
        }
    }
    // The zip reader keeps one of several entries with the same name;
    // which one other tools pick differs, so the archive is ambiguous.
    for name in duplicate_names(&bytes) {
        diags.push(
            Diagnostic::error(
                codes::CSAR_DUPLICATE_ENTRY,
                format!("zip entry `{name}` appears more than once"),
            )
            .at(file_loc.clone())
            .hint("tools disagree on which copy counts; rebuild the archive with each file once"),
        );
    }
    if diags.has_errors() {
        return Err(Error::Input(diags));
    }
    Ok(Csar {
        path: input.to_path_buf(),
        origin: Origin::Zip(bytes),
        entries,
        limits: limits.clone(),
    })
}

/// A file entry of a zip archive, read.
struct ZipEntry {
    /// The name as the archive writes it.
    raw_name: String,
    /// The name normalised into a CSAR path.
    name: String,
    data: Vec<u8>,
}

/// Entry `i` of the archive, or `None` when it is a directory or was
/// refused (reported): unreadable, a name that escapes the archive, a
/// symbolic link, or over a size limit.
fn read_entry(
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    i: usize,
    input: &Path,
    limits: &Limits,
    diags: &mut Diagnostics,
) -> Option<ZipEntry> {
    let file_loc = Location::file(input.display().to_string());
    let mut file = match archive.by_index(i) {
        Ok(f) => f,
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    codes::CSAR_UNREADABLE,
                    format!("entry {i} of `{}` cannot be read: {e}", input.display()),
                )
                .at(file_loc),
            );
            return None;
        }
    };
    let raw_name = String::from_utf8_lossy(file.name_raw()).into_owned();
    let name = match path::normalize(&raw_name) {
        Ok(n) => n,
        Err(why) => {
            diags.push(
                Diagnostic::error(
                    codes::CSAR_PATH_ESCAPE,
                    format!("zip entry `{raw_name}` {why}"),
                )
                .at(file_loc)
                .hint("entries of a CSAR must be relative paths inside the archive"),
            );
            return None;
        }
    };
    if file.is_dir() {
        return None;
    }
    if file.is_symlink() {
        diags.push(
            Diagnostic::error(
                codes::CSAR_SYMLINK,
                format!("zip entry `{name}` is a symbolic link"),
            )
            .at(file_loc)
            .hint("a CSAR must contain regular files only"),
        );
        return None;
    }
    let declared = file.size();
    if let Some(d) = declared_size_problem(input, &name, declared, file.compressed_size(), limits) {
        diags.push(d);
        return None;
    }
    match decompress(&mut file, declared, input, &name, limits) {
        Ok(data) => Some(ZipEntry {
            raw_name,
            name,
            data,
        }),
        Err(d) => {
            diags.push(d);
            None
        }
    }
}

/// Whether the sizes an entry declares are over the limits: its size, or
/// (for entries over 1 MiB) its compression ratio, a sign of a zip bomb.
fn declared_size_problem(
    input: &Path,
    name: &str,
    declared: u64,
    compressed: u64,
    limits: &Limits,
) -> Option<Diagnostic> {
    let compressed = compressed.max(1);
    if declared > limits.max_entry_size {
        return Some(limit(
            input,
            format!(
                "entry `{name}` is {declared} bytes, more than the limit of {}",
                limits.max_entry_size
            ),
            "--max-entry-size",
        ));
    }
    if declared > 1024 * 1024 && declared / compressed > limits.max_compression_ratio {
        return Some(limit(
            input,
            format!(
                "entry `{name}` expands {}:1, more than the limit of {}:1 (zip bomb?)",
                declared / compressed,
                limits.max_compression_ratio
            ),
            "--max-compression-ratio",
        ));
    }
    None
}

/// The content of an entry that declares `declared` bytes, read up to the
/// entry size limit whatever it declares.
fn decompress(
    file: &mut impl Read,
    declared: u64,
    input: &Path,
    name: &str,
    limits: &Limits,
) -> std::result::Result<Vec<u8>, Diagnostic> {
    let mut data = Vec::with_capacity(declared.min(64 * 1024 * 1024) as usize);
    // Never trust the declared size: read at most one byte more than allowed.
    if let Err(e) = file.take(limits.max_entry_size + 1).read_to_end(&mut data) {
        return Err(Diagnostic::error(
            codes::CSAR_UNREADABLE,
            format!("zip entry `{name}` cannot be decompressed: {e}"),
        )
        .at(Location::file(input.display().to_string())));
    }
    if data.len() as u64 > limits.max_entry_size {
        return Err(limit(
            input,
            format!(
                "entry `{name}` expands beyond the limit of {} bytes",
                limits.max_entry_size
            ),
            "--max-entry-size",
        ));
    }
    Ok(data)
}

/// Names that occur more than once in the central directory, sorted. An
/// archive whose directory cannot be walked (zip64, damage) yields none:
/// the zip reader has accepted it, and its own checks apply.
fn duplicate_names(bytes: &[u8]) -> Vec<String> {
    const EOCD: &[u8] = b"PK\x05\x06";
    const HEADER: &[u8] = b"PK\x01\x02";
    let u16_at = |i: usize| -> Option<usize> {
        Some(u16::from_le_bytes(bytes.get(i..i + 2)?.try_into().ok()?) as usize)
    };
    let u32_at = |i: usize| -> Option<usize> {
        Some(u32::from_le_bytes(bytes.get(i..i + 4)?.try_into().ok()?) as usize)
    };
    // The end record is in the last 64 KiB + 22 bytes (its comment is at most 64 KiB).
    let from = bytes.len().saturating_sub(65_557);
    let Some(eocd) = bytes[from..]
        .windows(4)
        .rposition(|w| w == EOCD)
        .map(|i| from + i)
    else {
        return Vec::new();
    };
    let (Some(count), Some(mut at)) = (u16_at(eocd + 10), u32_at(eocd + 16)) else {
        return Vec::new();
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut twice = std::collections::BTreeSet::new();
    for _ in 0..count {
        if bytes.get(at..at + 4) != Some(HEADER) {
            return Vec::new();
        }
        let (Some(n), Some(x), Some(c)) = (u16_at(at + 28), u16_at(at + 30), u16_at(at + 32))
        else {
            return Vec::new();
        };
        let Some(name) = bytes.get(at + 46..at + 46 + n) else {
            return Vec::new();
        };
        let name = String::from_utf8_lossy(name).into_owned();
        if !seen.insert(name.clone()) {
            twice.insert(name);
        }
        at += 46 + n + x + c;
    }
    twice.into_iter().collect()
}

fn open_dir(root: &Path, limits: &Limits) -> Result<Csar> {
    let mut diags = Diagnostics::new();
    let mut entries = BTreeMap::new();
    let mut total: u64 = 0;
    let root_loc = Location::file(root.display().to_string());
    for item in walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .min_depth(1)
    {
        let item = item.map_err(|e| {
            let path = e
                .path()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| root.to_path_buf());
            let io = e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("directory walk failed"));
            Error::io("cannot read", path, io)
        })?;
        let rel = item
            .path()
            .strip_prefix(root)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if item.path_is_symlink() {
            diags.push(
                Diagnostic::error(
                    codes::CSAR_SYMLINK,
                    format!("`{rel}` in the CSAR directory is a symbolic link"),
                )
                .at(root_loc.clone())
                .hint(
                    "a CSAR must contain regular files only; copy the file instead of linking it",
                ),
            );
            continue;
        }
        if !item.file_type().is_file() {
            continue;
        }
        if entries.len() >= limits.max_entries {
            return Err(input_error(limit(
                root,
                format!("has more than {} files", limits.max_entries),
                "--max-entries",
            )));
        }
        let data = read_limited_file(item.path(), limits)?;
        if data.len() as u64 > limits.max_entry_size {
            diags.push(limit(
                root,
                format!(
                    "file `{rel}` is larger than the limit of {} bytes",
                    limits.max_entry_size
                ),
                "--max-entry-size",
            ));
            continue;
        }
        total += data.len() as u64;
        if total > limits.max_total_size {
            return Err(input_error(limit(
                root,
                format!(
                    "is larger than the limit of {} bytes in total",
                    limits.max_total_size
                ),
                "--max-total-size",
            )));
        }
        entries.insert(rel, Content::new(data));
    }
    if diags.has_errors() {
        return Err(Error::Input(diags));
    }
    Ok(Csar {
        path: root.to_path_buf(),
        origin: Origin::Directory,
        entries,
        limits: limits.clone(),
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use zip::write::SimpleFileOptions;

    use super::*;

    /// A zip archive of `(name, data)` entries, deflated.
    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        let mut w = zip::ZipWriter::new(&mut out);
        for (name, data) in entries {
            w.start_file(*name, SimpleFileOptions::default()).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap();
        out.into_inner()
    }

    fn messages(r: Result<Csar>) -> Vec<String> {
        match r {
            Err(Error::Input(d)) => d.iter().map(|d| d.message.clone()).collect(),
            Err(e) => panic!("{e}"),
            Ok(_) => Vec::new(),
        }
    }

    #[test]
    fn reads_the_entries_of_an_archive() {
        let bytes = zip_of(&[("a/b.txt", b"hello"), ("./c.txt", b"x")]);
        let csar = open_zip(Path::new("t.csar"), bytes, &Limits::default()).unwrap();
        assert_eq!(csar.names().collect::<Vec<_>>(), ["a/b.txt", "c.txt"]);
        assert_eq!(csar.get("a/b.txt"), Some(&b"hello"[..]));
    }

    #[test]
    fn an_escaping_entry_is_refused_and_the_others_still_checked() {
        let limits = Limits {
            max_entry_size: 4,
            ..Limits::default()
        };
        let bytes = zip_of(&[("../evil", b"x"), ("big", b"12345"), ("ok", b"1")]);
        let m = messages(open_zip(Path::new("t.csar"), bytes, &limits));
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(m[0].starts_with("zip entry `../evil`"), "{m:?}");
        assert!(
            m[1].contains("entry `big` is 5 bytes, more than the limit of 4"),
            "{m:?}"
        );
    }

    #[test]
    fn a_zip_bomb_is_caught_by_its_ratio() {
        let limits = Limits {
            max_compression_ratio: 10,
            ..Limits::default()
        };
        let d = declared_size_problem(Path::new("t.csar"), "e", 2 * 1024 * 1024, 1024, &limits)
            .expect("a problem");
        assert!(d.message.contains("expands 2048:1"), "{}", d.message);
        assert!(declared_size_problem(Path::new("t.csar"), "e", 1000, 10, &limits).is_none());
    }

    #[test]
    fn decompression_stops_at_the_limit_whatever_is_declared() {
        let limits = Limits {
            max_entry_size: 3,
            ..Limits::default()
        };
        let d = decompress(&mut &b"12345"[..], 1, Path::new("t.csar"), "e", &limits).unwrap_err();
        assert!(d.message.contains("expands beyond the limit of 3 bytes"));
        assert_eq!(
            decompress(&mut &b"123"[..], 3, Path::new("t.csar"), "e", &limits).unwrap(),
            b"123"
        );
    }
}
