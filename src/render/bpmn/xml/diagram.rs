//! The diagram interchange (BPMNDI) of a plan: one `BPMNDiagram` per
//! laid-out plane, a shape per node and an edge per flow or association,
//! from what [`crate::render::bpmn::layout`] computed.
//!
//! In: a [`Diagram`] and the plan's text. Out: XML text.

use crate::render::bpmn::graph::{Text, push_uint};
use crate::render::bpmn::layout::{Diagram, EdgeOf};

/// Write the diagram of one plane into `out`, calling `spill` between
/// elements.
pub(super) fn diagram(
    out: &mut String,
    text: &Text,
    d: &Diagram,
    spill: &mut dyn FnMut(&mut String),
) {
    out.push_str("<bpmndi:BPMNDiagram id=\"");
    out.push_str(d.element);
    out.push_str("_diagram\"><bpmndi:BPMNPlane id=\"");
    out.push_str(d.element);
    out.push_str("_plane\" bpmnElement=\"");
    out.push_str(d.element);
    out.push_str("\">\n");
    d.each_shape(&mut |s| {
        spill(out);
        out.push_str(" <bpmndi:BPMNShape bpmnElement=\"");
        out.push_str(s.id);
        // Collapsed is what a shape without `isExpanded` is drawn as
        // (bpmn-js, so the Camunda and Operaton modellers).
        if s.expanded == Some(true) {
            out.push_str("\" isExpanded=\"true");
        }
        out.push_str("\"><dc:Bounds x=\"");
        push_int(out, s.bounds.x);
        out.push_str("\" y=\"");
        push_int(out, s.bounds.y);
        out.push_str("\" width=\"");
        push_int(out, s.bounds.w);
        out.push_str("\" height=\"");
        push_int(out, s.bounds.h);
        out.push_str("\"/></bpmndi:BPMNShape>\n");
    });
    d.each_edge(&mut |element, points, (dx, dy)| {
        spill(out);
        out.push_str(" <bpmndi:BPMNEdge bpmnElement=\"");
        match element {
            EdgeOf::Flow(plane, k) => plane.flow_id(text, k, out),
            EdgeOf::Association(id) => out.push_str(id),
        }
        out.push_str("\">");
        for &(x, y) in points {
            out.push_str("<di:waypoint x=\"");
            push_int(out, i64::from(x) + dx);
            out.push_str("\" y=\"");
            push_int(out, i64::from(y) + dy);
            out.push_str("\"/>");
        }
        out.push_str("</bpmndi:BPMNEdge>\n");
    });
    out.push_str("</bpmndi:BPMNPlane></bpmndi:BPMNDiagram>\n");
}

/// Append an integer.
fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_uint(out, v.unsigned_abs());
}

#[cfg(test)]
mod tests {
    use super::push_int;

    #[test]
    fn numbers() {
        // (Escaping is tested in render/escape.rs.)
        let mut s = String::new();
        for v in [0, 7, -12, 1234567] {
            push_int(&mut s, v);
            s.push(' ');
        }
        assert_eq!(s, "0 7 -12 1234567 ");
    }
}
