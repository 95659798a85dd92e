//! Putting plans into a TOSCA 1.0 Definitions document by editing its text:
//! every byte outside the edited places stays as it was (comments,
//! extension attributes, formatting). Elements toscanini adds carry
//! `toscanini:generated`, so that a later run removes exactly what an
//! earlier run added before adding the new plans.
//!
//! Added: a `Plan` per plan in the service template's `Plans` (created after
//! `TopologyTemplate` if missing), and the boundary interface operation
//! that exposes it (OpenTOSCA-Lifecycle-Interface `initiate`/`terminate`),
//! creating `BoundaryDefinitions`, `Interfaces` and `Interface` as needed.

use std::sync::Arc;

use super::dom::{Document, ElemId};
use super::names::{TOSCA, TOSCANINI};
use super::outline::Outline;
use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, codes};

/// A plan to put into the service template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlanEntry {
    /// `id` and `name` of the Plan element.
    pub id: String,
    /// `planType`.
    pub plan_type: String,
    /// `planLanguage`.
    pub plan_language: String,
    /// Input parameters and whether each is required.
    pub inputs: Vec<(String, bool)>,
    /// Output parameters.
    pub outputs: Vec<String>,
    /// `PlanModelReference/@reference`, relative to the document.
    pub reference: String,
    /// The boundary interface and operation to bind the plan to, if any.
    pub boundary: Option<(String, String)>,
    /// Marker value (the plan kind).
    pub marker: String,
}

/// What a previous run generated, found in the document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Previous {
    /// `PlanModelReference/@reference` of every plan a previous run added.
    pub references: Vec<String>,
}

/// The entry document read for a write-back, parsed once for both
/// questions asked of it (a 100k-node document is tens of megabytes):
/// what earlier runs added, and the document without it.
pub(crate) struct Prepared {
    /// Plans an earlier run added (none if the document does not parse).
    pub previous: Previous,
    /// The service template the plans go into.
    st_id: String,
    /// The document without what earlier runs added.
    stripped: Stripped,
}

/// A document without what earlier runs added.
enum Stripped {
    /// Parsed whole, every generated element removed.
    Parsed(Result<Document, Diagnostic>),
    /// The loader's outline of a document no earlier run wrote into.
    Outline(Outline),
}

/// Parse `source` for a write-back into service template `st_id`, unless
/// `outline` is the loader's outline of it (then nothing is parsed).
pub(crate) fn prepare(
    source: &Arc<SourceFile>,
    st_id: &str,
    outline: Option<&Outline>,
) -> Prepared {
    let st_id = st_id.to_string();
    if let Some(outline) = outline.filter(|o| Arc::ptr_eq(&o.doc.source, source)) {
        return Prepared {
            previous: Previous::default(),
            st_id,
            stripped: Stripped::Outline(outline.clone()),
        };
    }
    let (previous, stripped) = match Document::parse(source.clone(), 1024) {
        Ok(doc) => (previous(&doc, &st_id), strip(source, doc)),
        Err(e) => (Previous::default(), Err(e)),
    };
    Prepared {
        previous,
        st_id,
        stripped: Stripped::Parsed(stripped),
    }
}

/// The plans toscanini added to service template `st_id` earlier.
fn previous(doc: &Document, st_id: &str) -> Previous {
    let Some(st) = service_template(doc, st_id) else {
        return Previous::default();
    };
    let mut out = Previous::default();
    for plans in doc.children(st, TOSCA, "Plans") {
        for p in doc.children(plans, TOSCA, "Plan") {
            if doc.attr_ns(p, TOSCANINI, "generated").is_some()
                && let Some(r) = doc
                    .child(p, TOSCA, "PlanModelReference")
                    .and_then(|r| doc.attr(r, "reference"))
            {
                out.references.push(r.to_string());
            }
        }
    }
    out
}

fn service_template(doc: &Document, st_id: &str) -> Option<ElemId> {
    doc.children(0, TOSCA, "ServiceTemplate")
        .find(|&s| doc.attr(s, "id") == Some(st_id))
}

/// Rewrite the document: remove what earlier runs added, then add `plans`.
pub(crate) fn rewrite(
    prepared: Prepared,
    plans: &[PlanEntry],
) -> Result<(String, Diagnostics), Diagnostic> {
    let st_id = prepared.st_id.as_str();
    let doc = match prepared.stripped {
        Stripped::Parsed(doc) => doc?,
        // An id of a plan may be taken: the whole document is parsed, so
        // that the check below finds the element that takes it.
        Stripped::Outline(o) if plans.iter().any(|p| o.may_have_id(&p.id)) => {
            Document::parse(o.doc.source.clone(), 1024)?
        }
        Stripped::Outline(o) => o.doc,
    };
    let file = doc.source.clone();
    let st = service_template(&doc, st_id).ok_or_else(|| {
        Diagnostic::error(
            codes::NO_SERVICE_TEMPLATE,
            format!("service template `{st_id}` is not in `{}`", file.name()),
        )
    })?;
    check_plan_ids(&doc, plans)?;
    let e = Editor {
        doc: &doc,
        text: file.text(),
        st,
        st_id,
        prefix: match doc.raw_name(st).split_once(':') {
            Some((p, _)) => format!("{p}:"),
            None => String::new(),
        },
    };
    let mut edits: Vec<Edit> = Vec::new();
    let mut diags = Diagnostics::new();
    edits.extend(e.plans(plans)?);
    e.boundary(plans, &mut edits, &mut diags)?;
    Ok((apply(e.text, edits), diags))
}

/// Plan ids are xs:IDs: they must not clash with any id of the document.
fn check_plan_ids(doc: &Document, plans: &[PlanEntry]) -> Result<(), Diagnostic> {
    for p in plans {
        if let Some(e) = doc.elements.iter().position(|e| {
            e.attrs
                .iter()
                .any(|a| a.ns.is_none() && &*a.local == "id" && a.value == p.id)
        }) {
            return Err(Diagnostic::error(
                codes::PLAN_ID_TAKEN,
                format!(
                    "the plan id `{}` is already used by a <{}> of the document",
                    p.id,
                    doc.get(e).local
                ),
            )
            .at(doc.source.location(doc.get(e).start_tag))
            .hint("rename that element, or remove the plan toscanini would replace"));
        }
    }
    Ok(())
}

/// The edits of one service template of a (stripped) document.
struct Editor<'d> {
    doc: &'d Document,
    text: &'d str,
    /// The service template element and its id.
    st: ElemId,
    st_id: &'d str,
    /// The namespace prefix the service template is written with (`tosca:`
    /// or empty), used for every element added.
    prefix: String,
}

impl Editor<'_> {
    /// The edit that adds the plans: into `Plans`, or a new `Plans` after
    /// `TopologyTemplate`.
    fn plans(&self, plans: &[PlanEntry]) -> Result<Option<Edit>, Diagnostic> {
        let (doc, text, prefix) = (self.doc, self.text, &self.prefix);
        let plan_xml: Vec<String> = plans.iter().map(|p| plan_element(p, prefix)).collect();
        if plan_xml.is_empty() {
            return Ok(None);
        }
        if let Some(plans_el) = doc.child(self.st, TOSCA, "Plans") {
            let indent = child_indent(text, doc, plans_el);
            let at = closing_tag_start(text, doc, plans_el);
            let body: String = plan_xml.iter().map(|x| reindent(x, &indent)).collect();
            return Ok(Some(insert_before_close(text, doc, plans_el, at, body)));
        }
        let topo = self.topology_template()?;
        let indent = line_indent(text, doc.get(topo).span.start);
        let inner = format!("{indent}    ");
        let mut xml = format!(
            "\n{indent}<{prefix}Plans xmlns:toscanini=\"{TOSCANINI}\" toscanini:generated=\"plans\">\n"
        );
        for x in &plan_xml {
            xml.push_str(&reindent(x, &inner));
        }
        xml.push_str(&format!("{indent}</{prefix}Plans>"));
        Ok(Some((doc.get(topo).span.end, doc.get(topo).span.end, xml)))
    }

    fn topology_template(&self) -> Result<ElemId, Diagnostic> {
        self.doc
            .child(self.st, TOSCA, "TopologyTemplate")
            .ok_or_else(|| {
                Diagnostic::error(
                    codes::NO_SERVICE_TEMPLATE,
                    format!("service template `{}` has no TopologyTemplate", self.st_id),
                )
            })
    }

    /// The edits that bind plans to boundary interface operations: new
    /// operations go into an existing `Interface`; new interfaces into
    /// `Interfaces`, creating it and `BoundaryDefinitions` as needed. An
    /// operation already bound to something else is kept, with a warning.
    fn boundary(
        &self,
        plans: &[PlanEntry],
        edits: &mut Vec<Edit>,
        diags: &mut Diagnostics,
    ) -> Result<(), Diagnostic> {
        let (doc, text, prefix) = (self.doc, self.text, &self.prefix);
        let boundary = doc.child(self.st, TOSCA, "BoundaryDefinitions");
        let interfaces = boundary.and_then(|b| doc.child(b, TOSCA, "Interfaces"));
        let mut new_interfaces = String::new();
        for (iface, ops) in &by_interface(plans) {
            let existing = interfaces.and_then(|is| {
                doc.children(is, TOSCA, "Interface")
                    .find(|&i| doc.attr(i, "name") == Some(iface))
            });
            let ops_xml = self.operations(iface, ops, existing, diags);
            if ops_xml.is_empty() {
                continue;
            }
            match existing {
                Some(i) => {
                    let indent = child_indent(text, doc, i);
                    let at = closing_tag_start(text, doc, i);
                    let body: String = ops_xml.iter().map(|x| reindent(x, &indent)).collect();
                    edits.push(insert_before_close(text, doc, i, at, body));
                }
                None => {
                    new_interfaces.push_str(&format!(
                        "<{prefix}Interface name=\"{}\" xmlns:toscanini=\"{TOSCANINI}\" toscanini:generated=\"interface\">\n",
                        esc(iface)
                    ));
                    for x in &ops_xml {
                        new_interfaces.push_str(&reindent(x, "    "));
                    }
                    new_interfaces.push_str(&format!("</{prefix}Interface>\n"));
                }
            }
        }
        if !new_interfaces.is_empty() {
            edits.push(self.new_interfaces(boundary, interfaces, &new_interfaces)?);
        }
        Ok(())
    }

    /// The `Operation` elements binding `ops` (operation, plan id) of
    /// interface `iface`, leaving out (with a warning) those the existing
    /// interface already has.
    fn operations(
        &self,
        iface: &str,
        ops: &[(String, String)],
        existing: Option<ElemId>,
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let (doc, prefix) = (self.doc, &self.prefix);
        let mut ops_xml = Vec::new();
        for (op, plan_id) in ops {
            let bound = existing.and_then(|i| {
                doc.children(i, TOSCA, "Operation")
                    .find(|&o| doc.attr(o, "name") == Some(op))
            });
            if let Some(o) = bound {
                let other = doc
                    .child(o, TOSCA, "Plan")
                    .and_then(|p| doc.attr(p, "planRef"))
                    .unwrap_or("something else");
                diags.push(
                    Diagnostic::warning(
                        codes::W_BOUNDARY_TAKEN,
                        format!("boundary operation `{iface}/{op}` is already bound to `{other}`; plan `{plan_id}` is added but not bound to it"),
                    )
                    .at(doc.source.location(doc.get(o).start_tag))
                    .hint("remove that binding to let the container run the generated plan for this operation"),
                );
                continue;
            }
            ops_xml.push(format!(
                "<{prefix}Operation name=\"{}\" xmlns:toscanini=\"{TOSCANINI}\" toscanini:generated=\"operation\">\n    <{prefix}Plan planRef=\"{}\"/>\n</{prefix}Operation>\n",
                esc(op),
                esc(plan_id)
            ));
        }
        ops_xml
    }

    /// The edit that adds new `Interface` elements (`xml`): into
    /// `Interfaces`, or a new `Interfaces` in `BoundaryDefinitions`, or a
    /// new `BoundaryDefinitions` before `TopologyTemplate`.
    fn new_interfaces(
        &self,
        boundary: Option<ElemId>,
        interfaces: Option<ElemId>,
        xml: &str,
    ) -> Result<Edit, Diagnostic> {
        let (doc, text, prefix) = (self.doc, self.text, &self.prefix);
        Ok(match (boundary, interfaces) {
            (_, Some(is)) => {
                let indent = child_indent(text, doc, is);
                let at = closing_tag_start(text, doc, is);
                insert_before_close(text, doc, is, at, reindent(xml, &indent))
            }
            (Some(b), None) => {
                let indent = child_indent(text, doc, b);
                let at = closing_tag_start(text, doc, b);
                let xml = format!(
                    "<{prefix}Interfaces xmlns:toscanini=\"{TOSCANINI}\" toscanini:generated=\"interfaces\">\n{}</{prefix}Interfaces>\n",
                    reindent(xml, "    ")
                );
                insert_before_close(text, doc, b, at, reindent(&xml, &indent))
            }
            (None, _) => {
                let topo = self.topology_template()?;
                let start = doc.get(topo).span.start;
                let indent = line_indent(text, start);
                let xml = format!(
                    "<{prefix}BoundaryDefinitions xmlns:toscanini=\"{TOSCANINI}\" toscanini:generated=\"boundary\">\n    <{prefix}Interfaces toscanini:generated=\"interfaces\">\n{}    </{prefix}Interfaces>\n</{prefix}BoundaryDefinitions>\n",
                    reindent(xml, "        ")
                );
                // Insert at the start of TopologyTemplate's line, indented like it.
                let line_start = start - indent.len();
                (line_start, line_start, reindent(&xml, &indent))
            }
        })
    }
}

/// The boundary operations of `plans`, grouped by interface in order of
/// first appearance: (interface, [(operation, plan id)]).
fn by_interface(plans: &[PlanEntry]) -> Vec<(String, Vec<(String, String)>)> {
    let mut by_iface: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for p in plans {
        if let Some((iface, op)) = &p.boundary {
            match by_iface.iter_mut().find(|(i, _)| i == iface) {
                Some((_, ops)) => ops.push((op.clone(), p.id.clone())),
                None => by_iface.push((iface.clone(), vec![(op.clone(), p.id.clone())])),
            }
        }
    }
    by_iface
}

fn esc(s: &str) -> String {
    crate::names::xml_escape(s).into_owned()
}

fn plan_element(p: &PlanEntry, prefix: &str) -> String {
    let mut x = format!(
        "<{prefix}Plan id=\"{}\" name=\"{}\" planType=\"{}\" planLanguage=\"{}\" xmlns:toscanini=\"{TOSCANINI}\" toscanini:generated=\"{}\">\n",
        esc(&p.id),
        esc(&p.id),
        esc(&p.plan_type),
        esc(&p.plan_language),
        esc(&p.marker)
    );
    if !p.inputs.is_empty() {
        x.push_str(&format!("    <{prefix}InputParameters>\n"));
        for (name, required) in &p.inputs {
            x.push_str(&format!(
                "        <{prefix}InputParameter name=\"{}\" type=\"String\" required=\"{}\"/>\n",
                esc(name),
                if *required { "yes" } else { "no" }
            ));
        }
        x.push_str(&format!("    </{prefix}InputParameters>\n"));
    }
    if !p.outputs.is_empty() {
        x.push_str(&format!("    <{prefix}OutputParameters>\n"));
        for name in &p.outputs {
            x.push_str(&format!(
                "        <{prefix}OutputParameter name=\"{}\" type=\"String\" required=\"yes\"/>\n",
                esc(name)
            ));
        }
        x.push_str(&format!("    </{prefix}OutputParameters>\n"));
    }
    x.push_str(&format!(
        "    <{prefix}PlanModelReference reference=\"{}\"/>\n",
        esc(&p.reference)
    ));
    x.push_str(&format!("</{prefix}Plan>\n"));
    x
}

/// Remove every element marked as generated (with the whitespace before
/// it), then wrappers toscanini created that are left empty; `doc` is
/// `source` parsed. The result is parsed too.
fn strip(source: &Arc<SourceFile>, mut doc: Document) -> Result<Document, Diagnostic> {
    loop {
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        for (i, e) in doc.elements.iter().enumerate() {
            let remove = removable(&doc, i);
            // Only outermost marked elements: a removed parent takes its children.
            let parent_removed = cuts
                .iter()
                .any(|&(s, en)| e.span.start >= s && e.span.end <= en);
            if remove && !parent_removed {
                let start = doc.source.text()[..e.span.start].trim_end().len();
                cuts.push((start, e.span.end));
            }
        }
        if cuts.is_empty() {
            return Ok(doc);
        }
        cuts.sort();
        let mut text = doc.source.text().to_string();
        for (s, e) in cuts.into_iter().rev() {
            text.replace_range(s..e, "");
        }
        doc = Document::parse(Arc::new(SourceFile::new(source.name(), text)), 1024)?;
    }
}

/// A marked plan or operation, or a marked wrapper holding nothing but
/// removable elements (a user's addition inside a wrapper keeps it).
fn removable(doc: &Document, id: ElemId) -> bool {
    match doc.attr_ns(id, TOSCANINI, "generated") {
        None => false,
        Some("plans" | "boundary" | "interfaces" | "interface") => {
            doc.get(id).children.iter().all(|&c| removable(doc, c))
        }
        Some(_) => true,
    }
}

/// A replacement of `text[start..end]` (an insertion when they are equal).
type Edit = (usize, usize, String);

fn apply(text: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|(start, _, _)| *start);
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|(_, _, s)| s.len()).sum::<usize>());
    let mut last = 0;
    for (start, end, s) in edits {
        out.push_str(&text[last..start]);
        out.push_str(&s);
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

/// Indentation (leading whitespace) of the line containing `offset`.
fn line_indent(text: &str, offset: usize) -> String {
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    text[line_start..offset]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// Indentation for children of `id`: that of its first child element,
/// else its own plus four spaces.
fn child_indent(text: &str, doc: &Document, id: ElemId) -> String {
    match doc.get(id).children.first() {
        Some(&c) => line_indent(text, doc.get(c).span.start),
        None => format!("{}    ", line_indent(text, doc.get(id).span.start)),
    }
}

/// Offset of `</name>` of an element (or of `/>` for an empty one).
fn closing_tag_start(text: &str, doc: &Document, id: ElemId) -> usize {
    let e = doc.get(id);
    if e.start_tag.end == e.span.end && text[e.start_tag.start..e.start_tag.end].ends_with("/>") {
        e.span.end - 2
    } else {
        text[..e.span.end].rfind("</").unwrap_or(e.span.end)
    }
}

/// Insert `body` (already indented) as the last children of `id`; `at`
/// is where its closing tag (or the `/>` of an empty element) starts.
fn insert_before_close(text: &str, doc: &Document, id: ElemId, at: usize, body: String) -> Edit {
    let e = doc.get(id);
    let own = line_indent(text, e.span.start);
    if e.start_tag.end == e.span.end && text[e.start_tag.start..e.start_tag.end].ends_with("/>") {
        // <X/> becomes <X>…</X>: the `/>` is replaced.
        let name = doc.raw_name(id);
        return (at, e.span.end, format!(">\n{body}{own}</{name}>"));
    }
    // Put the new children after the last non-space text before `</X>`.
    let before = text[..at].trim_end().len();
    if text[before..at].contains('\n') {
        (before, before, format!("\n{}", body.trim_end_matches('\n')))
    } else {
        (at, at, format!("\n{body}{own}"))
    }
}

/// Indent every line of `xml` by `indent`.
fn reindent(xml: &str, indent: &str) -> String {
    xml.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{indent}{l}\n")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"<?xml version="1.0"?>
<Definitions xmlns="http://docs.oasis-open.org/tosca/ns/2011/12" id="d" targetNamespace="urn:x">
    <!-- keep me -->
    <ServiceTemplate id="st">
        <TopologyTemplate>
            <NodeTemplate id="a" type="x:T" xmlns:x="urn:x"/>
        </TopologyTemplate>
    </ServiceTemplate>
</Definitions>
"#;

    fn entry(id: &str, op: &str) -> PlanEntry {
        PlanEntry {
            id: id.into(),
            plan_type: "urn:type".into(),
            plan_language: "urn:lang".into(),
            inputs: vec![("CorrelationID".into(), true)],
            outputs: vec![],
            reference: format!("../plans/{id}.zip"),
            boundary: Some(("OpenTOSCA-Lifecycle-Interface".into(), op.into())),
            marker: "build".into(),
        }
    }

    /// `plans` put into `src`'s service template `st`, the document parsed
    /// here; the same with the loader's outline of it, where it has one.
    fn rewritten(
        src: &Arc<SourceFile>,
        plans: &[PlanEntry],
    ) -> Result<(String, Diagnostics), Diagnostic> {
        let parsed = rewrite(prepare(src, "st", None), plans);
        let doc = Document::parse(src.clone(), 64).unwrap();
        if let Some(outline) = Outline::of(&doc) {
            let outlined = rewrite(prepare(src, "st", Some(&outline)), plans);
            assert_eq!(format!("{parsed:?}"), format!("{outlined:?}"));
        }
        parsed
    }

    #[test]
    fn the_loaders_outline_is_taken_for_the_very_text_it_outlines() {
        let src = Arc::new(SourceFile::new("d.tosca", DOC));
        let outline = Outline::of(&Document::parse(src.clone(), 64).unwrap()).unwrap();
        let taken = prepare(&src, "st", Some(&outline));
        assert!(matches!(taken.stripped, Stripped::Outline(_)));
        // Another file of the same text is parsed.
        let other = Arc::new(SourceFile::new("d.tosca", DOC));
        let parsed = prepare(&other, "st", Some(&outline));
        assert!(matches!(parsed.stripped, Stripped::Parsed(Ok(_))));
    }

    #[test]
    fn adds_plans_and_boundary_and_replaces_them_on_rerun() {
        let src = Arc::new(SourceFile::new("d.tosca", DOC));
        let (once, d) = rewritten(&src, &[entry("st_buildPlan", "initiate")]).unwrap();
        assert!(d.is_empty());
        assert!(once.contains("<!-- keep me -->"));
        assert!(once.contains(r#"<Plan id="st_buildPlan""#));
        assert!(once.contains(r#"<Operation name="initiate""#));
        let bd = once.find("<BoundaryDefinitions").unwrap();
        assert!(bd < once.find("<TopologyTemplate").unwrap());
        assert!(once.find("<Plans").unwrap() > once.find("</TopologyTemplate>").unwrap());
        // Running again on the output gives the same document.
        let src2 = Arc::new(SourceFile::new("d.tosca", once.clone()));
        let (twice, _) = rewritten(&src2, &[entry("st_buildPlan", "initiate")]).unwrap();
        assert_eq!(once, twice);
        // Removing all plans gives back the original.
        let (none, _) = rewritten(&src2, &[]).unwrap();
        assert_eq!(none, DOC);
        assert_eq!(
            prepare(&src2, "st", None).previous.references,
            vec!["../plans/st_buildPlan.zip"]
        );
    }

    #[test]
    fn fills_an_empty_boundary_element() {
        let doc = DOC.replace(
            "        <TopologyTemplate>",
            "        <BoundaryDefinitions/>\n        <TopologyTemplate>",
        );
        let src = Arc::new(SourceFile::new("d.tosca", doc.clone()));
        let (out, _) = rewritten(&src, &[entry("st_buildPlan", "initiate")]).unwrap();
        Document::parse(Arc::new(SourceFile::new("d.tosca", out.clone())), 64).unwrap();
        assert!(
            out.contains("<BoundaryDefinitions>\n            <Interfaces"),
            "{out}"
        );
        let (back, _) = rewritten(&Arc::new(SourceFile::new("d.tosca", out)), &[]).unwrap();
        assert!(
            back.contains("<BoundaryDefinitions>\n        </BoundaryDefinitions>"),
            "{back}"
        );
    }

    #[test]
    fn keeps_a_users_binding_and_warns() {
        let doc = DOC.replace(
            "        <TopologyTemplate>",
            "        <BoundaryDefinitions><Interfaces><Interface name=\"OpenTOSCA-Lifecycle-Interface\"><Operation name=\"initiate\"><Plan planRef=\"mine\"/></Operation></Interface></Interfaces></BoundaryDefinitions>\n        <TopologyTemplate>",
        );
        let src = Arc::new(SourceFile::new("d.tosca", doc));
        let (out, d) = rewritten(&src, &[entry("st_buildPlan", "initiate")]).unwrap();
        assert_eq!(d.iter().next().unwrap().code, codes::W_BOUNDARY_TAKEN);
        assert_eq!(out.matches("name=\"initiate\"").count(), 1);
    }

    #[test]
    fn boundary_operations_are_grouped_by_interface_in_order() {
        let mut other = entry("p3", "scale");
        other.boundary = Some(("Other".into(), "go".into()));
        let mut none = entry("p4", "x");
        none.boundary = None;
        let plans = [
            entry("p1", "initiate"),
            other,
            entry("p2", "terminate"),
            none,
        ];
        let grouped = by_interface(&plans);
        assert_eq!(grouped.len(), 2);
        assert_eq!(grouped[0].0, "OpenTOSCA-Lifecycle-Interface");
        assert_eq!(
            grouped[0].1,
            [
                ("initiate".to_string(), "p1".to_string()),
                ("terminate".to_string(), "p2".to_string())
            ]
        );
        assert_eq!(grouped[1].1, [("go".to_string(), "p3".to_string())]);
    }

    #[test]
    fn a_plan_id_taken_by_an_element_is_refused() {
        let source = Arc::new(SourceFile::new("d.tosca", DOC));
        let e = rewritten(&source, &[entry("a", "initiate")]).unwrap_err();
        assert_eq!(e.code, codes::PLAN_ID_TAKEN);
        assert!(
            e.message.contains("already used by a <NodeTemplate>"),
            "{}",
            e.message
        );
    }
}
