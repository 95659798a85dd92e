package org.toscanini.bpel;

import java.util.ArrayList;
import java.util.List;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What ODE cannot show without running the plan, checked on its structure: that the plan reports
 * its own plan instance to the OpenTOSCA container (issue 21). ODE's compiler drops the
 * bpel4RestLight calls that do it (see {@link ExtensionCheck}), and no released engine runs them,
 * so this is the closest check of the plan instance a BPEL plan gets here:
 * <ul>
 * <li>the main sequence sets the plan instance RUNNING in its first call (a PUT of
 * {@code $bpelvar[planInstanceURL]/state}, the state assigned just before), after assigning
 * {@code planInstanceURL} as the container names it ({@code …/buildplans/<plan>/instances/…} or
 * {@code …/managementplans/<plan>/instances/…}) and, in the same assign, {@code planLogs} as
 * {@code concat($planInstanceURL, '/logs')};</li>
 * <li>it sets it FINISHED in its last activity;</li>
 * <li>the process's {@code catchAll} compensates, then sets it FAILED, then rethrows;</li>
 * <li>each activity of the main flow (a {@code <scope>}) posts a log entry to
 * {@code $bpelvar[planLogs]} first ("started") and last ("finished").</li>
 * </ul>
 */
final class PlanInstanceCheck {
    private static final String URL_VAR = "planInstanceURL";
    /** The plan instance's log, said once: every entry is posted to it. */
    private static final String LOGS_VAR = "planLogs";
    private static final String LOGS = "concat($" + URL_VAR + ", '/logs')";

    private PlanInstanceCheck() {
    }

    static void run(Document bpel, String file, List<Problem> errors) {
        Element process = bpel.getDocumentElement();
        String plan = process.getAttribute("name");
        Element main = Xml.child(process, Xml.BPEL, "sequence");
        if (main == null) {
            errors.add(new Problem(file, Xml.line(process), "plan instance: the process has no main sequence"));
            return;
        }
        List<Element> acts = elements(main);
        checkUrl(acts, plan, file, errors);
        List<Element> calls = new ArrayList<>();
        for (Element a : acts) {
            if (isCall(a)) {
                calls.add(a);
            }
        }
        expectState(calls.isEmpty() ? null : calls.get(0), "RUNNING", "its first call", main, file, errors);
        expectState(acts.isEmpty() ? null : acts.get(acts.size() - 1), "FINISHED", "its last activity", main, file, errors);
        checkFailure(process, file, errors);
        Element flow = activities(main);
        if (flow == null) {
            errors.add(new Problem(file, Xml.line(main), "plan instance: the main sequence has no flow of"
                    + " activities (directly or in its scope)"));
            return;
        }
        for (Element scope : Xml.children(flow, Xml.BPEL, "scope")) {
            checkLog(scope, file, errors);
        }
    }

    /** The flow of the activities: in the main sequence, or in a scope of it that undoes them. */
    private static Element activities(Element main) {
        Element flow = Xml.child(main, Xml.BPEL, "flow");
        if (flow != null) {
            return flow;
        }
        for (Element scope : Xml.children(main, Xml.BPEL, "scope")) {
            flow = Xml.child(scope, Xml.BPEL, "flow");
            if (flow != null) {
                return flow;
            }
        }
        return null;
    }

    /** {@code planInstanceURL} is assigned the container's form of the plan instance URL. */
    private static void checkUrl(List<Element> acts, String plan, String file, List<Problem> errors) {
        for (Element a : acts) {
            Element from = isAssign(a) ? copiedInto(a, URL_VAR) : null;
            if (from == null) {
                continue;
            }
            String expr = from.getTextContent();
            boolean build = expr.contains("'/buildplans/" + plan + "/instances/'");
            boolean managed = expr.contains("'/managementplans/" + plan + "/instances/'");
            if ((!build && !managed) || !expr.contains("$correlationID")) {
                errors.add(new Problem(file, Xml.line(from), "plan instance: " + URL_VAR + " is "
                        + expr.strip() + ", not …/buildplans/" + plan + "/instances/<CorrelationID> or"
                        + " …/managementplans/" + plan + "/instances/<CorrelationID>"));
            }
            Element logs = copiedInto(a, LOGS_VAR);
            if (logs == null || !LOGS.equals(logs.getTextContent().strip())) {
                errors.add(new Problem(file, Xml.line(a), "plan instance: the assign of " + URL_VAR
                        + " must set " + LOGS_VAR + " to " + LOGS));
            }
            return;
        }
        errors.add(new Problem(file, 0, "plan instance: the main sequence never assigns " + URL_VAR));
    }

    /** {@code act} is a PUT of the plan instance state, whose request was last assigned {@code state}. */
    private static void expectState(Element act, String state, String where, Element parent, String file,
            List<Problem> errors) {
        String got = act == null ? null : stateSet(act, parent);
        if (!state.equals(got)) {
            errors.add(new Problem(file, act == null ? Xml.line(parent) : Xml.line(act), "plan instance: "
                    + where + " must set the plan instance " + state + (got == null ? "" : ", it sets " + got)));
        }
    }

    /** The state a PUT of {@code $bpelvar[planInstanceURL]/state} sets, from the assign before it. */
    private static String stateSet(Element act, Element parent) {
        Element op = restLight(act);
        if (op == null || !"PUT".equals(op.getLocalName())
                || !op.getAttribute("uri").equals("$bpelvar[" + URL_VAR + "]/state")) {
            return null;
        }
        String request = op.getAttribute("request");
        List<Element> siblings = elements(parent);
        int at = siblings.indexOf(act);
        for (int i = at - 1; i >= 0; i--) {
            Element a = siblings.get(i);
            if (!isAssign(a)) {
                break;
            }
            Element from = copiedInto(a, request);
            if (from != null) {
                return from.getTextContent().strip().replaceAll("^'|'$", "");
            }
        }
        return "an unassigned state";
    }

    /** The process's catchAll: compensate, then FAILED, then rethrow. */
    private static void checkFailure(Element process, String file, List<Problem> errors) {
        Element handlers = Xml.child(process, Xml.BPEL, "faultHandlers");
        Element all = handlers == null ? null : Xml.child(handlers, Xml.BPEL, "catchAll");
        Element seq = all == null ? null : Xml.child(all, Xml.BPEL, "sequence");
        if (seq == null) {
            errors.add(new Problem(file, Xml.line(process), "plan instance: the process has no catchAll sequence"
                    + " that sets the plan instance FAILED"));
            return;
        }
        List<Element> acts = elements(seq);
        int compensate = -1;
        int failed = -1;
        for (int i = 0; i < acts.size(); i++) {
            Element a = acts.get(i);
            if (Xml.BPEL.equals(a.getNamespaceURI()) && "compensate".equals(a.getLocalName())) {
                compensate = i;
            }
            if (isCall(a) && "FAILED".equals(stateSet(a, seq))) {
                failed = i;
            }
        }
        Element last = acts.isEmpty() ? null : acts.get(acts.size() - 1);
        boolean rethrows = last != null && "rethrow".equals(last.getLocalName());
        if (failed < 0 || failed < compensate || !rethrows || failed != acts.size() - 2) {
            errors.add(new Problem(file, Xml.line(seq), "plan instance: the catchAll must compensate, then set"
                    + " the plan instance FAILED, then rethrow"));
        }
    }

    /** A scope of the main flow logs "started" first and "finished" last. */
    private static void checkLog(Element scope, String file, List<Problem> errors) {
        String name = scope.getAttribute("name");
        Element body = null;
        for (Element e : elements(scope)) {
            if (e.getLocalName().equals("sequence") || e.getLocalName().equals("scope")) {
                body = e;
            }
        }
        if (body != null && body.getLocalName().equals("scope")) {
            body = Xml.child(body, Xml.BPEL, "sequence");
        }
        List<Element> acts = body == null ? List.of() : elements(body);
        if (!logs(acts, 1, "started " + name) || !logs(acts, acts.size() - 1, "finished " + name)) {
            errors.add(new Problem(file, Xml.line(scope), "plan instance: activity " + name
                    + " must post 'started " + name + "' to the plan instance log first and 'finished "
                    + name + "' last"));
        }
    }

    /** {@code acts[call]} posts to the log what the assign before it put in its request. */
    private static boolean logs(List<Element> acts, int call, String entry) {
        if (call < 1 || call >= acts.size() || !isAssign(acts.get(call - 1))) {
            return false;
        }
        Element op = restLight(acts.get(call));
        if (op == null || !"POST".equals(op.getLocalName())
                || !op.getAttribute("uri").equals("$bpelvar[" + LOGS_VAR + "]")) {
            return false;
        }
        Element from = copiedInto(acts.get(call - 1), op.getAttribute("request"));
        return from != null && entry.equals(entryText(from));
    }

    /**
     * The text a {@code <from>} gives a log entry: a literal's text, or an XPath string literal
     * ({@code 'finished x'}, copied into the entry the activity's first log left in the variable);
     * null for any other expression.
     */
    private static String entryText(Element from) {
        String text = from.getTextContent().strip();
        if (Xml.child(from, Xml.BPEL, "literal") != null) {
            return text;
        }
        if (text.length() >= 2 && text.startsWith("'") && text.endsWith("'")
                && text.indexOf('\'', 1) == text.length() - 1) {
            return text.substring(1, text.length() - 1);
        }
        return null;
    }

    /**
     * The {@code <from>} of the copy of {@code assign} into {@code variable} ({@code variable="v"}
     * or the expression {@code $v}), or null.
     */
    private static Element copiedInto(Element assign, String variable) {
        for (Element copy : Xml.children(assign, Xml.BPEL, "copy")) {
            Element to = Xml.child(copy, Xml.BPEL, "to");
            Element from = Xml.child(copy, Xml.BPEL, "from");
            if (to == null || from == null) {
                continue;
            }
            boolean named = variable.equals(to.getAttribute("variable"));
            boolean expression = to.getTextContent().strip().equals("$" + variable);
            if (named || expression) {
                return from;
            }
        }
        return null;
    }

    private static boolean isAssign(Element e) {
        return Xml.BPEL.equals(e.getNamespaceURI()) && "assign".equals(e.getLocalName());
    }

    private static boolean isCall(Element e) {
        return restLight(e) != null;
    }

    /** The bpel4RestLight element of an extension activity, or null. */
    private static Element restLight(Element e) {
        if (!Xml.BPEL.equals(e.getNamespaceURI()) || !"extensionActivity".equals(e.getLocalName())) {
            return null;
        }
        for (Element op : elements(e)) {
            if (OdeCompile.BPEL4RESTLIGHT.equals(op.getNamespaceURI())) {
                return op;
            }
        }
        return null;
    }

    /** The element children of {@code parent}, in order. */
    private static List<Element> elements(Node parent) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                out.add(e);
            }
        }
        return out;
    }
}
