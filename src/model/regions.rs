//! Scale-out regions from OpenTOSCA's service-template tags:
//! `scalingplans = <plan>[,<plan>...]` and, per plan,
//! `<plan> = <node ids>;<relationship ids>;<Strategy>[<node id>],...`
//! (anchor-opentosca.md §2, digest-xml.md §6.5). A strategy may carry an
//! argument: `WorkloadBased(Load)[Db]` picks the `Db` instance with the
//! lowest `Load`. Unlike OpenTOSCA, every item is trimmed, two nodes may
//! share a strategy, and malformed tags are errors rather than skipped (a
//! node with two strategies is rejected when the plan is derived).

use super::{RelId, ScalingRegion, Selection, Topology};
use crate::diagnostics::{Diagnostic, Diagnostics, Location, codes};

/// Regions declared by `tags` (name, value, location), in `scalingplans` order.
pub fn parse_scaling_tags(
    topology: &Topology,
    tags: &[(String, String, Location)],
) -> (Vec<ScalingRegion>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let mut regions = Vec::new();
    let Some((_, list, list_loc)) = tags.iter().find(|(n, _, _)| n == "scalingplans") else {
        return (regions, diags);
    };
    let mut listed = foldhash::HashSet::default();
    for name in list_items(list) {
        if !listed.insert(name) {
            diags.push(
                Diagnostic::error(
                    codes::REGION_INVALID,
                    format!("scaling plan `{name}` is listed twice in `scalingplans`"),
                )
                .at(list_loc.clone()),
            );
            continue;
        }
        let Some((_, value, loc)) = tags.iter().find(|(n, _, _)| n == name) else {
            diags.push(
                Diagnostic::error(codes::REGION_INVALID, format!("scaling plan `{name}` is listed in `scalingplans` but has no tag of its own"))
                    .at(list_loc.clone())
                    .hint(format!("add <Tag name=\"{name}\" value=\"<nodes>;<relationships>;<Strategy>[<node>]\"/>")),
            );
            continue;
        };
        if let Some(r) = parse_region(topology, name, value, loc, &mut diags) {
            regions.push(r);
        }
    }
    (regions, diags)
}

fn parse_region(
    topology: &Topology,
    name: &str,
    value: &str,
    loc: &Location,
    diags: &mut Diagnostics,
) -> Option<ScalingRegion> {
    let error = |message: String| {
        Diagnostic::error(codes::REGION_INVALID, message)
            .at(loc.clone())
            .hint("the value is `<node ids>;<relationship ids>;<Strategy>[<node id>],...` with comma-separated lists")
    };
    let mut parts: Vec<&str> = value.trim().split(';').collect();
    // A trailing `;` after the third part is tolerated.
    if parts.len() == 4 && parts[3].trim().is_empty() {
        parts.pop();
    }
    if parts.len() != 3 {
        diags.push(error(format!(
            "scaling plan `{name}` has {} `;`-separated parts, not 3",
            parts.len()
        )));
        return None;
    }
    let before = diags.error_count();
    let mut nodes = Vec::new();
    for id in list_items(parts[0]) {
        match topology.node_by_id(id) {
            Some(n) => nodes.push(n),
            None => diags.push(error(format!(
                "scaling plan `{name}` names `{id}`, which is not a node template"
            ))),
        }
    }
    let mut relationships = Vec::new();
    for id in list_items(parts[1]) {
        match topology.relationships.iter().position(|r| r.id == id) {
            Some(i) => relationships.push(RelId(i as u32)),
            None => diags.push(error(format!(
                "scaling plan `{name}` names `{id}`, which is not a relationship template"
            ))),
        }
    }
    let mut selections = Vec::new();
    for item in list_items(parts[2]) {
        match parse_selection(item) {
            Some((strategy, argument, node)) => match topology.node_by_id(&node) {
                Some(n) => selections.push(Selection { node: n, strategy, argument }),
                None => diags.push(error(format!("scaling plan `{name}` selects `{node}`, which is not a node template"))),
            },
            None => diags.push(error(format!(
                "scaling plan `{name}`: `{item}` is not of the form `Strategy[NodeId]` or `Strategy(argument)[NodeId]`"
            ))),
        }
    }
    if nodes.is_empty() && relationships.is_empty() && diags.error_count() == before {
        diags.push(error(format!("scaling plan `{name}` has an empty region")));
    }
    (diags.error_count() == before).then(|| ScalingRegion {
        name: name.to_string(),
        nodes,
        relationships,
        selections,
        origin: Some(loc.clone()),
    })
}

/// The items of a comma-separated list, trimmed, empty ones left out.
pub(super) fn list_items(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|i| !i.is_empty())
}

/// `Strategy[Node]` or `Strategy(arg)[Node]`.
pub(super) fn parse_selection(item: &str) -> Option<(String, Option<String>, String)> {
    let (head, node) = item.strip_suffix(']')?.split_once('[')?;
    let (strategy, argument) = match head.split_once('(') {
        Some((s, rest)) => (s.trim(), Some(rest.strip_suffix(')')?.trim().to_string())),
        None => (head.trim(), None),
    };
    let node = node.trim();
    (!strategy.is_empty() && !node.is_empty())
        .then(|| (strategy.to_string(), argument, node.to_string()))
}

#[cfg(test)]
mod tests {
    use super::parse_selection;

    #[test]
    fn parses_selections() {
        assert_eq!(
            parse_selection("FirstInstance[DockerEngine_w1_0]"),
            Some(("FirstInstance".into(), None, "DockerEngine_w1_0".into()))
        );
        assert_eq!(parse_selection(" WorkloadBased( Load )[db] "), None);
        assert_eq!(
            parse_selection("WorkloadBased( Load )[db]"),
            Some(("WorkloadBased".into(), Some("Load".into()), "db".into()))
        );
        assert_eq!(parse_selection("FirstInstance"), None);
    }
}
