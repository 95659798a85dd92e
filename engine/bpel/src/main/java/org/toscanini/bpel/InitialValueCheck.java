package org.toscanini.bpel;

import java.util.List;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * A variable declared with its initial value (WS-BPEL 2.0 §8.1, a from-spec inside
 * {@code <variable>}). ODE 1.3.7 does not implement it: its object model's {@code Variable} has
 * no from-spec, so the compiler reads past the value without a word and the variable starts
 * uninitialised, and the first read of it faults at run time. The schema allows the form, so
 * nothing else here would see it.
 */
final class InitialValueCheck {
    private InitialValueCheck() {
    }

    static void run(Document bpel, String file, List<Problem> errors) {
        NodeList vars = bpel.getElementsByTagNameNS(Xml.BPEL, "variable");
        for (int i = 0; i < vars.getLength(); i++) {
            Element v = (Element) vars.item(i);
            if (Xml.child(v, Xml.BPEL, "from") != null) {
                errors.add(new Problem(file, Xml.line(v), "variable " + v.getAttribute("name")
                        + " is declared with an initial value (WS-BPEL 2.0 section 8.1), which ODE 1.3.7"
                        + " ignores: the variable starts uninitialised; assign it instead"));
            }
        }
    }
}
