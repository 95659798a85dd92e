//! Entry names: normalised to `/`-separated relative paths that cannot leave
//! the archive root.

/// Normalise an entry name, or say why it is refused.
///
/// Backslashes become `/`; `.` segments and empty segments are dropped.
/// Absolute paths, drive letters and `..` segments are refused, so that no
/// entry can name a file outside the archive.
pub(crate) fn normalize(name: &str) -> Result<String, &'static str> {
    if name.contains('\0') {
        return Err("contains a NUL character");
    }
    let unified = name.replace('\\', "/");
    if unified.starts_with('/') {
        return Err("is an absolute path");
    }
    if unified.len() >= 2 && unified.as_bytes()[1] == b':' {
        return Err("starts with a drive letter");
    }
    let mut parts = Vec::new();
    for seg in unified.split('/') {
        match seg {
            "" | "." => {}
            ".." => return Err("contains a `..` segment"),
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return Err("is empty");
    }
    Ok(parts.join("/"))
}

/// Resolve `reference` relative to the directory of `base` (both entry
/// names), as imports and artifact references are. `None` if the result
/// would leave the archive.
pub(crate) fn resolve(base: &str, reference: &str) -> Option<String> {
    let reference = reference.replace('\\', "/");
    let mut parts: Vec<&str> = if reference.starts_with('/') {
        Vec::new()
    } else {
        let mut p: Vec<&str> = base.split('/').collect();
        p.pop();
        p
    };
    for seg in reference.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Decode `%XX` escapes once (Winery writes URL-encoded namespace folders).
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Encode every byte outside `[A-Za-z0-9._~-]` as `%XX` (RFC 3986 unreserved).
pub(crate) fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_percent_encoded(&mut out, s);
    out
}

/// Append `s` to `out`, percent-encoded as [`percent_encode`] does.
pub(crate) fn push_percent_encoded(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escaping_names() {
        assert!(normalize("../x").is_err());
        assert!(normalize("a/../../x").is_err());
        assert!(normalize("/etc/passwd").is_err());
        assert!(normalize("C:\\x").is_err());
        assert_eq!(normalize("a\\b/./c").unwrap(), "a/b/c");
    }

    #[test]
    fn resolves_relative_references() {
        assert_eq!(
            resolve("Definitions/a.tosca", "b.tosca").unwrap(),
            "Definitions/b.tosca"
        );
        assert_eq!(resolve("Definitions/a.tosca", "../x/y").unwrap(), "x/y");
        assert_eq!(resolve("a.yaml", "../x"), None);
    }

    #[test]
    fn percent_round_trip() {
        assert_eq!(percent_encode("http://a.org/x"), "http%3A%2F%2Fa.org%2Fx");
        assert_eq!(percent_encode("é~ \n"), "%C3%A9~%20%0A");
        assert_eq!(percent_decode("http%3A%2F%2Fa.org%2Fx"), "http://a.org/x");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
