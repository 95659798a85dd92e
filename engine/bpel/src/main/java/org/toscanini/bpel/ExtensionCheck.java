package org.toscanini.bpel;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What ODE 1.3.x's compiler does not look at: its object model has no WS-BPEL extensions, so it
 * drops {@code <extensions>} and every {@code <extensionActivity>} silently (no warning, no
 * error) and the rest of the process compiles without them. This check covers them by itself,
 * structurally:
 * <ul>
 * <li>each {@code <extensionActivity>} holds one element of a namespace declared in
 * {@code <extensions>} (WS-BPEL 2.0 §14);</li>
 * <li>only the bpel4RestLight extension of the OpenTOSCA container's ODE build is known: its
 * activities must be GET, PUT, POST or DELETE with a {@code uri}, and every variable they name
 * ({@code request}, {@code response}, {@code $bpelvar[...]} in any attribute) must be declared
 * in an enclosing scope;</li>
 * <li>a declared extension other than bpel4RestLight with {@code mustUnderstand="yes"} is an
 * error: no engine the plans target implements it.</li>
 * </ul>
 */
final class ExtensionCheck {
    private static final Set<String> RESTLIGHT_METHODS = Set.of("GET", "PUT", "POST", "DELETE");
    private static final Pattern BPELVAR = Pattern.compile("\\$bpelvar\\[\\s*([^\\]\\s]*)\\s*\\]");

    /** Counts of what was seen, for the report. */
    int restLightActivities;

    private ExtensionCheck() {
    }

    static ExtensionCheck run(Document bpel, String file, List<Problem> errors) {
        ExtensionCheck c = new ExtensionCheck();
        Element process = bpel.getDocumentElement();
        Set<String> declared = new HashSet<>();
        Element extensions = Xml.child(process, Xml.BPEL, "extensions");
        if (extensions != null) {
            for (Element ext : Xml.children(extensions, Xml.BPEL, "extension")) {
                String ns = ext.getAttribute("namespace");
                declared.add(ns);
                boolean must = "yes".equals(ext.getAttribute("mustUnderstand"));
                if (must && !OdeCompile.BPEL4RESTLIGHT.equals(ns)) {
                    errors.add(new Problem(file, Xml.line(ext), "extension " + ns
                            + " is declared mustUnderstand=\"yes\", but neither ODE nor the OpenTOSCA"
                            + " container's ODE build (bpel4RestLight only) implements it"));
                }
            }
        }
        NodeList acts = bpel.getElementsByTagNameNS(Xml.BPEL, "extensionActivity");
        for (int i = 0; i < acts.getLength(); i++) {
            c.checkActivity((Element) acts.item(i), declared, file, errors);
        }
        return c;
    }

    private void checkActivity(Element act, Set<String> declared, String file, List<Problem> errors) {
        List<Element> inner = new ArrayList<>();
        for (Node n = act.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                inner.add(e);
            }
        }
        if (inner.size() != 1) {
            errors.add(new Problem(file, Xml.line(act),
                    "<extensionActivity> must hold exactly one element, it holds " + inner.size()));
            return;
        }
        Element op = inner.get(0);
        String ns = op.getNamespaceURI() == null ? "" : op.getNamespaceURI();
        int line = Xml.line(op);
        if (!declared.contains(ns)) {
            errors.add(new Problem(file, line, "extension activity {" + ns + "}" + op.getLocalName()
                    + " uses a namespace that <extensions> does not declare"));
        }
        if (!OdeCompile.BPEL4RESTLIGHT.equals(ns)) {
            errors.add(new Problem(file, line, "unknown extension activity {" + ns + "}" + op.getLocalName()
                    + ": released ODE has no extension activities and the OpenTOSCA container's ODE"
                    + " only bpel4RestLight"));
            return;
        }
        restLightActivities++;
        String method = op.getLocalName();
        if (!RESTLIGHT_METHODS.contains(method)) {
            errors.add(new Problem(file, line, "bpel4RestLight has no operation " + method
                    + " (only GET, PUT, POST, DELETE)"));
        }
        if (op.getAttribute("uri").isBlank()) {
            errors.add(new Problem(file, line, "bpel4RestLight:" + method + " has no uri"));
        }
        Set<String> visible = visibleVariables(op);
        for (String attr : List.of("request", "response")) {
            if (op.hasAttribute(attr)) {
                String v = op.getAttribute(attr).strip();
                if (!visible.contains(v)) {
                    errors.add(new Problem(file, line, "bpel4RestLight:" + method + " " + attr + "=\"" + v
                            + "\" names no variable declared in an enclosing scope"));
                }
            }
        }
        NamedNodeMap attrs = op.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            Matcher m = BPELVAR.matcher(a.getValue());
            while (m.find()) {
                if (!visible.contains(m.group(1))) {
                    errors.add(new Problem(file, line, "bpel4RestLight:" + method + " " + a.getName() + " refers to $bpelvar["
                            + m.group(1) + "], which names no variable declared in an enclosing scope"));
                }
            }
        }
    }

    /** Variables visible at {@code e}: those of the enclosing scopes and the process, and implicit ones. */
    private static Set<String> visibleVariables(Element e) {
        Set<String> names = new HashSet<>();
        for (Node n = e.getParentNode(); n instanceof Element anc; n = anc.getParentNode()) {
            if (!Xml.BPEL.equals(anc.getNamespaceURI())) {
                continue;
            }
            switch (anc.getLocalName()) {
                case "process", "scope" -> {
                    Element vars = Xml.child(anc, Xml.BPEL, "variables");
                    if (vars != null) {
                        for (Element v : Xml.children(vars, Xml.BPEL, "variable")) {
                            names.add(v.getAttribute("name"));
                        }
                    }
                }
                case "forEach" -> names.add(anc.getAttribute("counterName"));
                case "onEvent" -> names.add(anc.getAttribute("variable"));
                case "catch" -> names.add(anc.getAttribute("faultVariable"));
                default -> {
                }
            }
        }
        names.remove("");
        return names;
    }
}
