package org.toscanini.bpel;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import javax.xml.namespace.QName;
import javax.xml.validation.Schema;

import org.apache.ode.bpel.o.OPartnerLink;
import org.apache.ode.bpel.o.OProcess;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Checks {@code deploy.xml}: valid against ODE's deployment descriptor schema (dd.xsd), every
 * process it names compiled, and the partner-link bindings that ODE needs to activate a process.
 */
public final class DeployCheck {
    static final String NAME = "deploy.xml";

    private DeployCheck() {
    }

    /**
     * @param compiled the processes that compiled, by QName
     * @param defined  the processes the package's .bpel files define (compiled or not), by QName,
     *                 with the file that defines each
     * @param unreadable whether some .bpel file could not be read as a process (so what it
     *                 defines is unknown, and reported already)
     * @param services the services the package's WSDL files define, with their port names
     */
    static void run(Schema dd, Path pkg, Map<QName, OProcess> compiled, Map<QName, String> defined,
            boolean unreadable, Map<QName, Set<String>> services, List<Problem> errors) {
        Path file = pkg.resolve(NAME);
        List<Problem> invalid = Xml.validate(dd, file, NAME);
        errors.addAll(invalid);
        Document doc;
        try {
            doc = Xml.parse(file);
        } catch (Exception e) {
            if (invalid.isEmpty()) {
                errors.add(new Problem(NAME, 0, "cannot be parsed: " + e.getMessage()));
            }
            return;
        }
        Element root = doc.getDocumentElement();
        if (!Xml.DD.equals(root.getNamespaceURI()) || !"deploy".equals(root.getLocalName())) {
            if (invalid.isEmpty()) {
                errors.add(new Problem(NAME, Xml.line(root), "not an ODE deployment descriptor: root element is {"
                        + root.getNamespaceURI() + "}" + root.getLocalName()));
            }
            return;
        }
        Set<QName> named = new HashSet<>();
        for (Element p : Xml.children(root, Xml.DD, "process")) {
            int line = Xml.line(p);
            QName q = qname(p, p.getAttribute("name"));
            if (q == null) {
                errors.add(new Problem(NAME, line, "process name \"" + p.getAttribute("name")
                        + "\" is not a QName with a declared prefix"));
                continue;
            }
            if (!named.add(q)) {
                errors.add(new Problem(NAME, line, "process " + q + " is named twice"));
            }
            OProcess op = compiled.get(q);
            if (op == null) {
                if (!defined.containsKey(q) && !unreadable) {
                    errors.add(new Problem(NAME, line, "process " + q + " is not defined by any .bpel file of"
                            + " the package (ODE: no compiled process for it)"
                            + (defined.isEmpty() ? "" : "; the package defines " + defined.keySet())));
                } // else its .bpel did not compile or could not be read, which is reported already
                continue;
            }
            checkBindings(p, op, services, errors);
        }
        for (Map.Entry<QName, String> d : defined.entrySet()) {
            if (!named.contains(d.getKey())) {
                errors.add(new Problem(NAME, Xml.line(root), "process " + d.getKey() + " (" + d.getValue()
                        + ") is not named in deploy.xml, so ODE would not deploy it"));
            }
        }
    }

    /** ODE's BpelProcess refuses to activate a process whose partner links are not bound. */
    private static void checkBindings(Element p, OProcess op, Map<QName, Set<String>> services,
            List<Problem> errors) {
        Map<String, Element> provides = bindings(p, "provide", errors);
        Map<String, Element> invokes = bindings(p, "invoke", errors);
        Map<String, OPartnerLink> links = new HashMap<>();
        for (OPartnerLink pl : op.getAllPartnerLinks()) {
            links.put(pl.getName(), pl);
            if (pl.hasMyRole() && !provides.containsKey(pl.getName())) {
                errors.add(new Problem(NAME, Xml.line(p), "no <provide> for partner link " + pl.getName()
                        + ", which has myRole (ODE: \"No service name for myRole plink " + pl.getName() + "\")"));
            }
            if (pl.hasPartnerRole() && pl.initializePartnerRole && !invokes.containsKey(pl.getName())) {
                errors.add(new Problem(NAME, Xml.line(p), "no <invoke> for partner link " + pl.getName()
                        + ", which has partnerRole (ODE: \"" + pl.getName()
                        + " must be bound to an endpoint in deploy.xml\")"));
            }
        }
        checkRoleBindings("provide", "myRole", provides, links, OPartnerLink::hasMyRole, op, services, errors);
        checkRoleBindings("invoke", "partnerRole", invokes, links, OPartnerLink::hasPartnerRole, op, services, errors);
    }

    /** Each <provide> or <invoke> names a partner link with that role, bound to a known service. */
    private static void checkRoleBindings(String kind, String role, Map<String, Element> bound,
            Map<String, OPartnerLink> links, Predicate<OPartnerLink> hasRole, OProcess op,
            Map<QName, Set<String>> services, List<Problem> errors) {
        for (Map.Entry<String, Element> b : bound.entrySet()) {
            OPartnerLink pl = links.get(b.getKey());
            if (pl == null || !hasRole.test(pl)) {
                errors.add(new Problem(NAME, Xml.line(b.getValue()), "<" + kind + " partnerLink=\"" + b.getKey()
                        + "\"> names no partner link with " + role + " in process " + op.getQName()));
            }
            checkService(b.getValue(), services, errors);
        }
    }

    private static Map<String, Element> bindings(Element p, String kind, List<Problem> errors) {
        Map<String, Element> out = new LinkedHashMap<>();
        for (Element b : Xml.children(p, Xml.DD, kind)) {
            String pl = b.getAttribute("partnerLink");
            if (out.put(pl, b) != null) {
                errors.add(new Problem(NAME, Xml.line(b), "partner link " + pl + " has two <" + kind + ">"));
            }
        }
        return out;
    }

    /** The service an endpoint is bound to must be in a WSDL of the package, with that port. */
    private static void checkService(Element binding, Map<QName, Set<String>> services, List<Problem> errors) {
        Element svc = Xml.child(binding, Xml.DD, "service");
        if (svc == null) {
            return; // dd.xsd validation reports it where it is required
        }
        QName name = qname(svc, svc.getAttribute("name"));
        String port = svc.getAttribute("port");
        int line = Xml.line(svc);
        if (name == null) {
            errors.add(new Problem(NAME, line, "service name \"" + svc.getAttribute("name")
                    + "\" is not a QName with a declared prefix"));
            return;
        }
        Set<String> ports = services.get(name);
        if (ports == null) {
            errors.add(new Problem(NAME, line, "service " + name + " is not defined by any WSDL of the package"));
        } else if (!ports.contains(port)) {
            errors.add(new Problem(NAME, line, "service " + name + " has no port \"" + port + "\" (ports: "
                    + new ArrayList<>(ports) + ")"));
        }
    }

    /** A partner link of process `caller` bound to the service (and port) that `callee` provides. */
    public record Call(QName caller, QName callee, QName service, String port) {
    }

    /**
     * The calls between processes of the package: deploy.xml binds a partner link of one process
     * to a service that another provides (a plan's call process). Empty where deploy.xml cannot be
     * read (reported by {@link #run}).
     */
    public static List<Call> calls(Path pkg) {
        List<Call> invokes = new ArrayList<>();
        Map<QName, QName> provider = new HashMap<>();
        try {
            Element root = Xml.parse(pkg.resolve(NAME)).getDocumentElement();
            for (Element p : Xml.children(root, Xml.DD, "process")) {
                QName process = qname(p, p.getAttribute("name"));
                for (String kind : List.of("provide", "invoke")) {
                    for (Element binding : Xml.children(p, Xml.DD, kind)) {
                        for (Element service : Xml.children(binding, Xml.DD, "service")) {
                            QName q = qname(service, service.getAttribute("name"));
                            if (q == null || process == null) {
                                continue;
                            }
                            if (kind.equals("invoke")) {
                                invokes.add(new Call(process, null, q, service.getAttribute("port")));
                            } else {
                                provider.put(q, process);
                            }
                        }
                    }
                }
            }
        } catch (Exception e) {
            return List.of();
        }
        List<Call> calls = new ArrayList<>();
        for (Call i : invokes) {
            QName callee = provider.get(i.service());
            if (callee != null) {
                calls.add(new Call(i.caller(), callee, i.service(), i.port()));
            }
        }
        return calls;
    }

    /** The processes that another process of the package invokes (of `calls`): no plans themselves. */
    public static Set<QName> called(List<Call> calls) {
        Set<QName> called = new HashSet<>();
        for (Call c : calls) {
            called.add(c.callee());
        }
        return called;
    }

    /** Resolves a prefixed name against the namespaces in scope at {@code context}. */
    static QName qname(Element context, String value) {
        String v = value.strip();
        int colon = v.indexOf(':');
        String prefix = colon < 0 ? null : v.substring(0, colon);
        String local = colon < 0 ? v : v.substring(colon + 1);
        if (local.isEmpty()) {
            return null;
        }
        String ns = context.lookupNamespaceURI(prefix);
        if (ns == null) {
            if (prefix != null) {
                return null;
            }
            ns = "";
        }
        return new QName(ns, local);
    }
}
