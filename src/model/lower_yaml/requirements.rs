//! Requirements (1.3 §3.6.2, §3.8.2): each requirement assignment of a
//! node template becomes a relationship to create, and a requirement with
//! no target template becomes a delegated node the orchestrator supplies.
//!
//! In: a lowered node template's AST and type key, and the names of the
//! other node templates. Out: [`PendingRel`]s and [`Synthetic`] nodes in a
//! [`Wiring`]; the relationships themselves are made once every node is
//! numbered (see `relationships.rs`).

use foldhash::{HashMap, HashSet, HashSetExt};
use std::collections::BTreeSet;
use std::rc::Rc;

use indexmap::IndexMap;

use super::allocation::Allocated;
use super::fulfil::{Pool, Wanted, filters_named};
use super::named_target::Named;
use super::types::nearest;
use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Location, codes};
use crate::model::NodeId;
use crate::names::Unique;
use crate::yaml::ast::{self, TypeKind};
use crate::yaml::node::Node;

/// What requirement targets are looked up in.
pub(super) struct Targets<'t, 'a> {
    /// The relationship templates of the topology.
    pub(super) topo: &'a ast::Topology,
    /// Node templates lowered so far, by name.
    pub(super) ids: &'t HashMap<String, NodeId>,
    /// Node templates that failed to lower (their requirements are skipped).
    pub(super) failed: &'t BTreeSet<String>,
    /// (node, requirement) pairs that `substitution_mappings` exports.
    pub(super) exported: &'t HashSet<(String, String)>,
    /// The templates dangling requirements may be fulfilled by.
    pub(super) pool: Pool<'t, 'a>,
}

/// What the requirements of all node templates add up to.
#[derive(Default)]
pub(super) struct Wiring<'a> {
    /// Relationships to create once every node exists.
    pub(super) pending: Vec<PendingRel<'a>>,
    /// Delegated nodes for dangling requirements.
    pub(super) synthetic: Vec<Synthetic>,
    /// Relationship templates some requirement names.
    pub(super) used_templates: BTreeSet<String>,
    /// Names of relationships and delegated nodes, unique together.
    pub(super) ids: Unique,
    /// How much of each property the pending relationships allocate on
    /// each node, kept as they are added: looked up for every candidate
    /// of an allocating requirement.
    allocated: HashMap<NodeId, HashMap<String, f64>>,
    /// The nodes the pending relationships allocate on, in the order they
    /// were added: whose room to look at again (`rooms.rs`).
    allocation_log: Vec<NodeId>,
}

/// The relationship of one assignment, before its target is known.
struct Assigned<'a> {
    type_key: Option<(String, Unit<'a>)>,
    properties: Vec<(&'a ast::Spanned, &'a Node, Unit<'a>)>,
    /// A relationship template's attribute assignments.
    attributes: Vec<(&'a ast::Spanned, &'a Node, Unit<'a>)>,
    interfaces: Vec<(&'a ast::Interface, Unit<'a>)>,
    /// The base of the relationship's id: the template's name, or
    /// `<node>_<requirement>`.
    id_base: String,
}

impl<'a> Lowerer<'a> {
    /// Add the relationships and delegated targets of node template `n`
    /// (of type `key`, numbered `source`) to `wiring`.
    pub(super) fn requirements(
        &mut self,
        n: &'a ast::NodeTemplate,
        key: &str,
        source: NodeId,
        unit: Unit<'a>,
        targets: &Targets<'_, 'a>,
        wiring: &mut Wiring<'a>,
    ) {
        // A selected node's relationships are the existing node's (2.0
        // §7.2: its requirements are ignored).
        if targets.pool.nodes[source.0 as usize].selection.is_some() {
            if let Some(first) = n.requirements.first() {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "the requirements of node template `{}` are ignored: it has the `select` directive, and an existing node's relationships are its own (TOSCA 2.0 §7.2)",
                            n.name.text
                        ),
                    )
                    .at(Self::at(unit, first.name.span))
                    .hint("drop the requirements, or drop `select` to have the plans make the node"),
                );
            }
            return;
        }
        let reqs = self.requirement_definitions(key);
        let mut assigned: HashSet<&str> = HashSet::new();
        for a in &n.requirements {
            assigned.insert(&a.name.text);
            let def = reqs.get(a.name.text.as_str()).cloned();
            self.assignment(n, key, a, def, source, unit, targets, wiring);
        }
        // Required requirements that are not assigned are dangling too.
        for (&rname, def) in reqs.iter() {
            if def.min == 0 || assigned.contains(rname) || exported(targets, &n.name.text, rname) {
                continue;
            }
            self.unassigned(n, rname, def, source, unit, targets, wiring);
        }
    }

    /// The requirement definitions of a node type, merged along its
    /// ancestry (a subtype's keys override).
    fn requirement_definitions(&mut self, key: &str) -> Rc<IndexMap<&'a str, ReqB<'a>>> {
        if let Some(known) = self.requirement_definitions.get(key) {
            return known.clone();
        }
        let mut reqs: IndexMap<&'a str, ReqB<'a>> = IndexMap::new();
        for d in self.defs(TypeKind::Node, key).iter() {
            for r in &d.def.requirements {
                let default_min = if d.unit.file.version.is_v2() { 0 } else { 1 };
                let slot = reqs.entry(r.name.text.as_str()).or_insert(ReqB {
                    capability: None,
                    node: None,
                    relationship: None,
                    interfaces: Vec::new(),
                    filters: Vec::new(),
                    min: r.min.unwrap_or(default_min),
                });
                if let Some(c) = &r.capability {
                    slot.capability = Some((c, d.unit));
                }
                if let Some(nn) = &r.node {
                    slot.node = Some((nn, d.unit));
                }
                if let Some(rel) = &r.relationship {
                    slot.relationship = Some((rel, d.unit));
                }
                slot.interfaces
                    .extend(r.relationship_interfaces.iter().map(|i| (i, d.unit)));
                // A refinement's filter applies in addition (2.0 §8.4).
                slot.filters
                    .extend(r.node_filter.as_ref().map(|f| (f, d.unit)));
                if let Some(m) = r.min {
                    slot.min = m;
                }
            }
        }
        let reqs = Rc::new(reqs);
        self.requirement_definitions
            .insert(key.to_string(), reqs.clone());
        reqs
    }

    /// One requirement assignment `a` of node template `n`: a pending
    /// relationship (and a delegated target if it names none), or nothing
    /// after a diagnostic or when it is exported.
    #[allow(clippy::too_many_arguments)]
    fn assignment(
        &mut self,
        n: &'a ast::NodeTemplate,
        key: &str,
        a: &'a ast::RequirementAssignment,
        def: Option<ReqB<'a>>,
        source: NodeId,
        unit: Unit<'a>,
        targets: &Targets<'_, 'a>,
        wiring: &mut Wiring<'a>,
    ) {
        let name = &n.name.text;
        let origin = Self::at(unit, a.span);
        if def.is_none() {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_DANGLING_REQUIREMENT,
                    format!(
                        "node template `{name}` assigns requirement `{}`, which its type `{key}` does not define",
                        a.name.text
                    ),
                )
                .at(origin.clone())
                .hint("the relationship and target given here are used as they are"),
            );
        }
        let Some(mut rel) =
            self.assigned_relationship(name, a, def.as_ref(), unit, targets, wiring)
        else {
            return;
        };
        if rel.type_key.is_none()
            && let Some((r, u)) = def.as_ref().and_then(|d| d.relationship)
        {
            rel.type_key = self
                .resolve_or_report(TypeKind::Relationship, r, u, "relationship type")
                .map(|k| (k, u));
        }
        // Exported by substitution_mappings: fulfilled outside (1.3 §2.11).
        if a.node.is_none() && exported(targets, name, &a.name.text) {
            return;
        }
        // `count` relationships (2.0 §8.5.4); a named template is one.
        let given = a.count.or_else(|| {
            let i = a.count_input.as_ref()?;
            self.input_count(
                i,
                &format!("requirement `{}` of `{name}`", a.name.text),
                unit,
            )
        });
        // A named template with as many representations or more: one
        // relationship to each of the first `k` (chapter 14.3.2, one to
        // many; from a source with a count too, a full mesh, §14.3.3).
        let named = self.node_names.contains(a.node_text());
        let representations = if named {
            self.representations(a.node_text())
        } else {
            1
        };
        let fan_out = match given {
            Some(k) if named && k > 1 && representations > 1 && a.node_index.is_none() => {
                if k > u64::from(representations) {
                    self.diags.push(
                        Diagnostic::error(
                            codes::DANGLING_REFERENCE,
                            format!(
                                "requirement `{}` of `{name}` asks for {k} relationships to node template `{}`, which has {representations} representations",
                                a.name.text,
                                a.node_text()
                            ),
                        )
                        .at(origin.clone())
                        .hint("a relationship each reaches a different representation (TOSCA 2.0 §14.3.2): ask for at most as many as the template's `count`"),
                    );
                    return;
                }
                true
            }
            _ => false,
        };
        let count = match (given, named) {
            (Some(k), _) if fan_out => k,
            (Some(k), true) if k > 1 => {
                self.push_once(
                    Diagnostic::warning(
                        codes::W_DANGLING_REQUIREMENT,
                        format!(
                            "requirement `{}` of `{name}` asks for {k} relationships to node template `{}`, which is one node: one relationship is made",
                            a.name.text,
                            a.node_text()
                        ),
                    )
                    .at(origin.clone())
                    .hint("name a node type or a capability instead, and the templates of the topology that fit are taken"),
                );
                1
            }
            (Some(k), _) => k,
            (None, _) => 1,
        };
        for j in 0..count {
            let Some(target) = self.assigned_target(
                (name, source),
                a,
                def.as_ref(),
                &origin,
                unit,
                targets,
                wiring,
            ) else {
                return;
            };
            let id = wiring.ids.name(rel.id_base.clone());
            if let Some((index, span)) = a.node_index {
                self.indexed_targets
                    .push((id.clone(), index, Self::at(unit, span)));
            } else if fan_out {
                let index = ast::NodeIndex::Fixed(j as u32);
                self.indexed_targets
                    .push((id.clone(), index, origin.clone()));
            }
            wiring.push(PendingRel {
                id,
                requirement: &a.name.text,
                source,
                target,
                type_key: rel.type_key.clone(),
                capability: a
                    .capability
                    .as_ref()
                    .map(|c| (c, unit))
                    .or(def.as_ref().and_then(|d| d.capability)),
                properties: rel.properties.clone(),
                attributes: rel.attributes.clone(),
                interfaces: rel.interfaces.clone(),
                allocation: (&a.allocation, unit),
                origin: origin.clone(),
            });
        }
    }

    /// The relationship an assignment names: a relationship template, a
    /// relationship type, or one written inline (its type may still come
    /// from the definition). `None` after reporting an unknown name.
    fn assigned_relationship(
        &mut self,
        name: &str,
        a: &'a ast::RequirementAssignment,
        def: Option<&ReqB<'a>>,
        unit: Unit<'a>,
        targets: &Targets<'_, 'a>,
        wiring: &mut Wiring<'a>,
    ) -> Option<Assigned<'a>> {
        let mut rel = Assigned {
            type_key: None,
            properties: Vec::new(),
            attributes: Vec::new(),
            interfaces: def.map(|d| d.interfaces.clone()).unwrap_or_default(),
            id_base: format!("{name}_{}", a.name.text),
        };
        match &a.relationship {
            Some(ast::RelationshipAssignment::Name(s)) => {
                match targets
                    .topo
                    .relationship_templates
                    .iter()
                    .find(|t| t.name.text == s.text)
                {
                    Some(t) => {
                        wiring.used_templates.insert(t.name.text.clone());
                        self.take_template(&mut rel, t, unit);
                    }
                    None => match self.resolve(TypeKind::Relationship, &s.text, unit) {
                        Some(k) => rel.type_key = Some((k, unit)),
                        None => {
                            self.push_once(
                                Diagnostic::error(
                                    codes::UNKNOWN_TYPE,
                                    format!(
                                        "requirement `{}` of `{name}` names relationship `{}`, which is neither a relationship template nor a relationship type",
                                        a.name.text, s.text
                                    ),
                                )
                                .at(Self::at(unit, s.span))
                                .hint("define it under `relationship_templates` or `relationship_types`"),
                            );
                            return None;
                        }
                    },
                }
            }
            Some(ast::RelationshipAssignment::Inline {
                type_name,
                properties,
                attributes,
                interfaces,
                ..
            }) => {
                if let Some(tn) = type_name {
                    let k = self.resolve_or_report(
                        TypeKind::Relationship,
                        tn,
                        unit,
                        "relationship type",
                    )?;
                    rel.type_key = Some((k, unit));
                }
                rel.properties
                    .extend(properties.iter().map(|(k, v)| (k, v, unit)));
                rel.attributes
                    .extend(attributes.iter().map(|(k, v)| (k, v, unit)));
                rel.interfaces.extend(interfaces.iter().map(|i| (i, unit)));
            }
            None => {}
        }
        Some(rel)
    }

    /// Take type, properties, attributes, interfaces and name from
    /// relationship template `t`.
    fn take_template(
        &mut self,
        rel: &mut Assigned<'a>,
        t: &'a ast::RelationshipTemplate,
        unit: Unit<'a>,
    ) {
        rel.id_base = t.name.text.clone();
        match &t.type_name {
            Some(tn) => {
                rel.type_key = self
                    .resolve_or_report(TypeKind::Relationship, tn, unit, "relationship type")
                    .map(|k| (k, unit))
            }
            None => self.push_once(
                Diagnostic::error(
                    codes::YAML_MISSING_KEY,
                    format!("relationship template `{}` has no `type`", t.name.text),
                )
                .at(Self::at(unit, t.name.span)),
            ),
        }
        rel.properties
            .extend(t.properties.iter().map(|(k, v)| (k, v, unit)));
        rel.attributes
            .extend(t.attributes.iter().map(|(k, v)| (k, v, unit)));
        rel.interfaces
            .extend(t.interfaces.iter().map(|i| (i, unit)));
    }

    /// The target of an assignment: a node template, or a delegated node
    /// when it names a node type or nothing. `None` when the named
    /// template failed or is unknown (reported).
    #[allow(clippy::too_many_arguments)]
    fn assigned_target(
        &mut self,
        (name, source): (&str, NodeId),
        a: &'a ast::RequirementAssignment,
        def: Option<&ReqB<'a>>,
        origin: &Location,
        unit: Unit<'a>,
        targets: &Targets<'_, 'a>,
        wiring: &mut Wiring<'a>,
    ) -> Option<TargetRef> {
        let capability = a
            .capability
            .as_ref()
            .map(|c| (c, unit))
            .or(def.and_then(|d| d.capability));
        let Some(t) = &a.node else {
            let named = def
                .and_then(|d| d.node)
                .and_then(|(t, u)| self.resolve(TypeKind::Node, &t.text, u));
            // TOSCA 2.0 fulfils a dangling requirement from the topology
            // first (where its node_filter, if any, passes); 1.x one with
            // a node_filter, which selects among the templates that offer
            // its capability (1.3 §3.7.3.5.1) as one naming a node type
            // does among that type's.
            let mut note = None;
            let filtered = a.node_filter.is_some() || def.is_some_and(|d| !d.filters.is_empty());
            let scope = self.requirement_scope(a, name, unit);
            if scope.internal && (unit.file.version.is_v2() || filtered) {
                match self.fulfil_assignment(
                    (a, def),
                    (name, source),
                    (named.clone(), capability),
                    (origin, unit),
                    (targets, wiring),
                ) {
                    Ok(id) => return Some(TargetRef::Node(id)),
                    Err(n) => note = n,
                }
            }
            if a.optional {
                self.unfulfilled_optional(name, a, origin, note);
                return None;
            }
            if !scope.external {
                self.internal_unfulfilled(name, a, origin, note);
                return None;
            }
            let tk = named
                .or_else(|| self.placeholder_type(TypeKind::Node, "tosca.nodes.Root"))
                .unwrap_or_default();
            let id = wiring.ids.name(format!("{name}_{}_target", a.name.text));
            let why = format!(
                "requirement `{}` of `{name}` names no node template{}: the orchestrator supplies a `{tk}` as `{id}`, which the plans register but do not provision",
                a.name.text,
                match (note, &a.node_filter) {
                    (Some(n), _) => format!(" ({n})"),
                    (None, Some(_)) => " (only a node_filter)".to_string(),
                    (None, None) => String::new(),
                }
            );
            return Some(wiring.delegate(id, tk, origin.clone(), why));
        };
        if let Some(&id) = targets.ids.get(&t.text) {
            self.named_despite_directives(a, name, &t.text, unit);
            // A named template must pass the requirement's node filters
            // too (2.0 §8.5.2; `named_target.rs`).
            let named = Named {
                assignment: a,
                defined: def.map_or(&[], |d| d.filters.as_slice()),
                source: (name, source),
                target: (id, capability),
                unit,
            };
            return self
                .named_target_passes(&named, &targets.pool)
                .then_some(TargetRef::Node(id));
        }
        if targets.failed.contains(&t.text) || self.node_names.contains(&t.text) {
            return None;
        }
        match self.resolve(TypeKind::Node, &t.text, unit) {
            Some(tk) => {
                // A type-compatible template of the topology (1.3 §3.8.2)
                // that passes the node_filter, if any.
                let scope = self.requirement_scope(a, name, unit);
                let mut note = None;
                if scope.internal {
                    match self.fulfil_assignment(
                        (a, def),
                        (name, source),
                        (Some(tk.clone()), capability),
                        (origin, unit),
                        (targets, wiring),
                    ) {
                        Ok(id) => return Some(TargetRef::Node(id)),
                        Err(n) => note = n,
                    }
                }
                if a.optional {
                    self.unfulfilled_optional(name, a, origin, note);
                    return None;
                }
                if !scope.external {
                    self.internal_unfulfilled(name, a, origin, note);
                    return None;
                }
                let id = wiring.ids.name(format!("{name}_{}_target", a.name.text));
                let why = format!(
                    "requirement `{}` of `{name}` asks for a node of type `{tk}`, not a template{}: the orchestrator supplies it as `{id}`, which the plans register but do not provision",
                    a.name.text,
                    note.map(|n| format!(" ({n})")).unwrap_or_default()
                );
                Some(wiring.delegate(id, tk, origin.clone(), why))
            }
            None => {
                self.push_once(
                    Diagnostic::error(
                        codes::DANGLING_REFERENCE,
                        format!(
                            "requirement `{}` of `{name}` names `{}`, which is neither a node template nor a node type",
                            a.name.text, t.text
                        ),
                    )
                    .at(Self::at(unit, t.span))
                    .hint(closest(&t.text, &self.node_names)),
                );
                None
            }
        }
    }

    /// Fulfil assignment `a` (written in `unit`) of node `name` from the
    /// topology's templates (see `fulfil.rs`): of `node_type`, offering
    /// `capability`, passing its node_filter and those of its definition
    /// `def`.
    #[allow(clippy::type_complexity)]
    fn fulfil_assignment(
        &mut self,
        (a, def): (&'a ast::RequirementAssignment, Option<&ReqB<'a>>),
        (name, source): (&str, NodeId),
        (node_type, capability): (Option<String>, Option<(&'a ast::Spanned, Unit<'a>)>),
        (origin, unit): (&Location, Unit<'a>),
        (targets, wiring): (&Targets<'_, 'a>, &Wiring<'a>),
    ) -> Result<NodeId, Option<String>> {
        // The definition's filters, and the assignment's in addition
        // (2.0 §8.5: it "does not replace" them).
        let mut filters = def.map(|d| d.filters.clone()).unwrap_or_default();
        let defined = !filters.is_empty();
        filters.extend(a.node_filter.as_ref().map(|f| (f, unit)));
        let wanted = Wanted {
            source: (name, source),
            requirement: &a.name.text,
            node_type,
            capability,
            allocation: &a.allocation,
            filters,
            filters_named: filters_named(defined, a.node_filter.is_some()),
        };
        self.fulfil(
            &wanted,
            origin,
            &targets.pool,
            &wiring.targets_of(source, &a.name.text),
            &Allocated {
                amount: &|t, p| wiring.allocated(t, p),
                log: &wiring.allocation_log,
            },
        )
    }

    /// An optional requirement no template of the topology fulfils: no
    /// relationship (the orchestrator need not supply one). `note` says
    /// what its node_filter decided.
    fn unfulfilled_optional(
        &mut self,
        name: &str,
        a: &ast::RequirementAssignment,
        origin: &Location,
        note: Option<String>,
    ) {
        self.diags.push(
            Diagnostic::warning(
                codes::W_DANGLING_REQUIREMENT,
                format!(
                    "optional requirement `{}` of `{name}` is left unfulfilled: no further template of the topology fits it{}",
                    a.name.text,
                    note.map(|n| format!(" ({n})")).unwrap_or_default()
                ),
            )
            .at(origin.clone())
            .hint("name a node template, or drop `optional: true` for the orchestrator to supply one"),
        );
    }

    /// A required requirement `rname` that `n` does not assign: a
    /// relationship to a delegated node of the definition's node type.
    #[allow(clippy::too_many_arguments)]
    fn unassigned(
        &mut self,
        n: &'a ast::NodeTemplate,
        rname: &'a str,
        def: &ReqB<'a>,
        source: NodeId,
        unit: Unit<'a>,
        targets: &Targets<'_, 'a>,
        wiring: &mut Wiring<'a>,
    ) {
        let name = &n.name.text;
        let named = def
            .node
            .and_then(|(t, u)| self.resolve(TypeKind::Node, &t.text, u));
        let origin = Self::at(unit, n.name.span);
        // TOSCA 2.0: a mandatory dangling requirement is fulfilled from
        // the topology where a template fits.
        let (fulfilled, note) = if unit.file.version.is_v2() {
            let wanted = Wanted {
                source: (name, source),
                requirement: rname,
                node_type: named.clone(),
                capability: def.capability,
                allocation: &[],
                // The implicit assignment has the definition's filters
                // (2.0 §8.5).
                filters: def.filters.clone(),
                filters_named: filters_named(true, false),
            };
            match self.fulfil(
                &wanted,
                &origin,
                &targets.pool,
                &wiring.targets_of(source, rname),
                &Allocated {
                    amount: &|t, p| wiring.allocated(t, p),
                    log: &wiring.allocation_log,
                },
            ) {
                Ok(id) => (Some(id), None),
                Err(note) => (None, note),
            }
        } else {
            (None, None)
        };
        let type_key = def.relationship.and_then(|(r, u)| {
            self.resolve(TypeKind::Relationship, &r.text, u)
                .map(|k| (k, u))
        });
        if let Some(target) = fulfilled {
            let id = wiring.ids.name(format!("{name}_{rname}"));
            wiring.push(PendingRel {
                id,
                requirement: rname,
                source,
                target: TargetRef::Node(target),
                type_key,
                capability: def.capability,
                properties: Vec::new(),
                attributes: Vec::new(),
                interfaces: def.interfaces.clone(),
                allocation: (&[], unit),
                origin,
            });
            return;
        }
        let tk = named
            .or_else(|| self.placeholder_type(TypeKind::Node, "tosca.nodes.Root"))
            .unwrap_or_default();
        let id = wiring.ids.name(format!("{name}_{rname}_target"));
        let why = format!(
            "node template `{name}` does not assign its required requirement `{rname}`{}: the orchestrator supplies a `{tk}` as `{id}`, which the plans register but do not provision",
            note.map(|n| format!(" ({n})")).unwrap_or_default()
        );
        let target = wiring.delegate(id, tk, origin.clone(), why);
        let id = wiring.ids.name(format!("{name}_{rname}"));
        wiring.push(PendingRel {
            id,
            requirement: rname,
            source,
            target,
            type_key,
            capability: None,
            properties: Vec::new(),
            attributes: Vec::new(),
            interfaces: def.interfaces.clone(),
            allocation: (&[], unit),
            origin,
        });
    }
}

impl<'a> Wiring<'a> {
    /// The templates requirement `requirement` of `source` has already.
    /// (The source's relationships are the last ones pending: nodes are
    /// wired one after the other.)
    fn targets_of(&self, source: NodeId, requirement: &str) -> Vec<NodeId> {
        self.pending
            .iter()
            .rev()
            .take_while(|p| p.source == source)
            .filter(|p| p.requirement == requirement)
            .filter_map(|p| match p.target {
                TargetRef::Node(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// Add relationship `rel`, counting what it allocates on its target.
    fn push(&mut self, rel: PendingRel<'a>) {
        if let TargetRef::Node(t) = rel.target {
            if !rel.allocation.0.is_empty() {
                self.allocation_log.push(t);
            }
            for (k, v) in rel.allocation.0 {
                if let Some(amount) = v.as_str().and_then(super::allocation::amount) {
                    *self
                        .allocated
                        .entry(t)
                        .or_default()
                        .entry(k.text.clone())
                        .or_insert(0.0) += amount;
                }
            }
        }
        self.pending.push(rel);
    }

    /// How much of property `prop` the relationships so far allocate on
    /// node `target` (of any of its capabilities).
    fn allocated(&self, target: NodeId, prop: &str) -> f64 {
        self.allocated
            .get(&target)
            .and_then(|m| m.get(prop))
            .copied()
            .unwrap_or(0.0)
    }

    /// Add a delegated node; the target that names it.
    fn delegate(
        &mut self,
        id: String,
        type_key: String,
        origin: Location,
        why: String,
    ) -> TargetRef {
        self.synthetic.push(Synthetic {
            id,
            type_key,
            origin,
            why,
        });
        TargetRef::Synthetic(self.synthetic.len() - 1)
    }
}

/// A requirement definition merged along the ancestry.
#[derive(Clone)]
pub(super) struct ReqB<'a> {
    capability: Option<(&'a ast::Spanned, Unit<'a>)>,
    node: Option<(&'a ast::Spanned, Unit<'a>)>,
    relationship: Option<(&'a ast::Spanned, Unit<'a>)>,
    interfaces: Vec<(&'a ast::Interface, Unit<'a>)>,
    /// The node filters of the definition along the ancestry.
    filters: Vec<(&'a Node, Unit<'a>)>,
    min: u64,
}

/// Where a relationship goes before nodes are numbered.
#[derive(Clone, Copy)]
pub(super) enum TargetRef {
    Node(NodeId),
    /// A dangling requirement's delegated node (index into `synthetic`).
    Synthetic(usize),
}

/// A relationship to create once every node exists.
pub(super) struct PendingRel<'a> {
    pub(super) id: String,
    pub(super) requirement: &'a str,
    pub(super) source: NodeId,
    pub(super) target: TargetRef,
    pub(super) type_key: Option<(String, Unit<'a>)>,
    /// The capability (type or name) the target must offer, as the
    /// assignment or else the definition says.
    pub(super) capability: Option<(&'a ast::Spanned, Unit<'a>)>,
    pub(super) properties: Vec<(&'a ast::Spanned, &'a Node, Unit<'a>)>,
    /// The relationship template's attribute assignments.
    pub(super) attributes: Vec<(&'a ast::Spanned, &'a Node, Unit<'a>)>,
    pub(super) interfaces: Vec<(&'a ast::Interface, Unit<'a>)>,
    /// The assignment's `allocation` (2.0 §8.5.5), in its file.
    pub(super) allocation: (&'a [(ast::Spanned, Node)], Unit<'a>),
    pub(super) origin: Location,
}

/// A node the orchestrator supplies for a dangling requirement.
pub(super) struct Synthetic {
    pub(super) id: String,
    pub(super) type_key: String,
    pub(super) origin: Location,
    pub(super) why: String,
}

fn closest(name: &str, names: &BTreeSet<String>) -> String {
    match nearest(name, names) {
        Some(n) => format!("did you mean the node template `{n}`?"),
        None => {
            "name a node template of the topology, or a node type the orchestrator should supply"
                .into()
        }
    }
}

/// Whether requirement `requirement` of node template `node` is exported
/// by the substitution mappings (most topologies have none: no strings
/// are made for the lookup then).
fn exported(targets: &Targets<'_, '_>, node: &str, requirement: &str) -> bool {
    !targets.exported.is_empty()
        && targets
            .exported
            .contains(&(node.to_string(), requirement.to_string()))
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;
    use crate::model::RelKind;

    const HEAD: &str =
        "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n";

    #[test]
    fn one_assignment_becomes_a_relationship_of_the_definitions_type() {
        let (t, d) = lower_text(&format!(
            "{HEAD}    server: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      \
             requirements: [{{host: server}}]\n"
        ));
        let t = t.unwrap();
        assert!(!d.has_errors(), "{d:?}");
        assert_eq!(t.relationships.len(), 1);
        let r = &t.relationships[0];
        assert_eq!(r.id, "app_host");
        assert_eq!(r.kind, RelKind::HostedOn);
        assert_eq!(t.node(r.source).id, "app");
        assert_eq!(t.node(r.target).id, "server");
    }

    #[test]
    fn a_node_type_as_target_is_delegated_when_no_template_fits() {
        let (t, d) = lower_text(&format!(
            "{HEAD}    app:\n      type: tosca.nodes.SoftwareComponent\n      \
             requirements: [{{host: tosca.nodes.Compute}}]\n"
        ));
        let t = t.unwrap();
        let target = t.node_by_id("app_host_target").expect("a delegated node");
        assert!(t.node(target).is_abstract);
        assert_eq!(t.node(t.relationships[0].target).id, "app_host_target");
        assert!(d.iter().any(|d| {
            d.code == codes::W_YAML_DELEGATED
                && d.message
                    .contains("asks for a node of type `tosca.nodes.Compute`")
        }));
    }

    #[test]
    fn an_unknown_target_is_an_error_with_a_suggestion() {
        let (t, d) = lower_text(&format!(
            "{HEAD}    server: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      \
             requirements: [{{host: servr}}]\n"
        ));
        assert!(t.unwrap().relationships.is_empty());
        let e = d
            .iter()
            .find(|d| d.code == codes::DANGLING_REFERENCE)
            .expect("an error");
        assert!(e.message.contains("names `servr`"), "{}", e.message);
        assert!(
            e.hint.as_deref().is_some_and(|h| h.contains("`server`")),
            "{:?}",
            e.hint
        );
    }

    #[test]
    fn an_unknown_relationship_name_drops_the_assignment() {
        let (t, d) = lower_text(&format!(
            "{HEAD}    server: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      \
             requirements: [{{host: {{node: server, relationship: Nope}}}}]\n"
        ));
        assert!(t.unwrap().relationships.is_empty());
        assert!(
            d.iter().any(|d| d.code == codes::UNKNOWN_TYPE
                && d.message.contains("names relationship `Nope`"))
        );
    }

    #[test]
    fn a_2_0_placeholder_target_is_no_use_of_the_simple_profile() {
        // Client's requirement names no node type, so the orchestrator's
        // target is a Root node; the file itself names no profile type.
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_2_0\n\
             capability_types: {Service: {}}\n\
             node_types:\n  Client:\n    requirements: [{service: {capability: Service, count_range: [1, 1]}}]\n\
             service_template:\n  node_templates:\n    client: {type: Client}\n",
        );
        let t = t.unwrap();
        let target = t
            .node_by_id("client_service_target")
            .expect("a delegated node");
        assert!(t.node(target).is_abstract);
        assert!(
            !d.iter()
                .any(|d| d.message.contains("uses Simple Profile types")),
            "{d:?}"
        );
    }
}
