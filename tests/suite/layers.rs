//! The stages depend one way (issue 20): a module of `src/` uses only
//! modules of the stages below its own, and the files of one directory do
//! not use each other in a circle. The order is the pipeline's (README,
//! "Layout"); `lib.rs` and `main.rs` sit on top.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

/// The stages, lowest first; modules on one line are one stage and do not
/// use each other.
const STAGES: &[&[&str]] = &[
    &["diagnostics"],
    &["error"],
    &["names"],
    &["csar"],
    &["xml", "yaml"],
    &["model"],
    &["load"],
    &["plan"],
    &["plugins"],
    &["render"],
    &["writeback", "dot"],
    &["compile"],
    &["cli"],
];

/// Every `.rs` file under `src/`, as its module path (`render::bpmn::xml`)
/// and its code without comments and without its unit tests.
fn modules() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        out.insert(module_path(&src, path), code(&text));
    }
    out
}

fn module_path(src: &Path, file: &Path) -> String {
    let rel: PathBuf = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without its comments (doc links are not uses).
/// Unit tests count for the stages (a test of the model has no business
/// with a renderer either).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a module names through `crate::` or `super::`, resolved to the
/// longest module path that exists.
fn uses(module: &str, code: &str, all: &BTreeMap<String, String>) -> Vec<String> {
    let parent: Vec<&str> = module.split("::").collect();
    let parent = &parent[..parent.len().saturating_sub(1)];
    let mut out = Vec::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", parent.to_vec())] {
        for (i, _) in code.match_indices(prefix) {
            if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[i + prefix.len()..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut segments: Vec<&str> = base.clone();
            segments.extend(path.split("::").filter(|s| !s.is_empty()));
            while !segments.is_empty() && !all.contains_key(&segments.join("::")) {
                segments.pop();
            }
            if !segments.is_empty() {
                out.push(segments.join("::"));
            }
        }
    }
    out
}

/// `code` without its unit-test module (`#[cfg(test)] mod tests { … }`):
/// a test may well use a sibling that uses the module it tests.
fn without_tests(code: &str) -> String {
    let Some(start) = code.find("#[cfg(test)]\nmod tests {") else {
        return code.to_string();
    };
    let mut depth = 0;
    for (i, c) in code[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => {
                return format!("{}{}", &code[..start], &code[start + i + 1..]);
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    code[..start].to_string()
}

fn stage(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap();
    STAGES.iter().position(|s| s.contains(&top))
}

#[test]
fn no_module_uses_a_later_stage() {
    let all = modules();
    let mut wrong = Vec::new();
    for (module, code) in &all {
        let Some(own) = stage(module) else {
            assert!(
                module.is_empty(),
                "`{module}` is in no stage: add it to STAGES"
            );
            continue;
        };
        let own_top = module.split("::").next().unwrap();
        for used in uses(module, code, &all) {
            let top = used.split("::").next().unwrap();
            if top == own_top {
                continue;
            }
            match stage(&used) {
                Some(s) if s < own => {}
                _ => wrong.push(format!("{module} uses {used}")),
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "uses against the stages:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_files_of_a_directory_use_each_other_without_circles() {
    let all = modules();
    let mut graph = DiGraph::<&str, ()>::new();
    let nodes: BTreeMap<&str, _> = all
        .keys()
        .map(|m| (m.as_str(), graph.add_node(m.as_str())))
        .collect();
    for (module, code) in &all {
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        let depth = module.split("::").count();
        for used in uses(module, &without_tests(code), &all) {
            // The file of this directory that holds what is used.
            let inside = parent.is_empty() || used.starts_with(&format!("{parent}::"));
            let target = used.split("::").take(depth).collect::<Vec<_>>().join("::");
            if inside && target != *module {
                graph.update_edge(nodes[module.as_str()], nodes[target.as_str()], ());
            }
        }
    }
    let circles: Vec<String> = tarjan_scc(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<&str> = c.iter().map(|&n| graph[n]).collect();
            names.sort();
            names.join(" ↔ ")
        })
        .collect();
    assert!(
        circles.is_empty(),
        "circles of uses:\n{}",
        circles.join("\n")
    );
}
