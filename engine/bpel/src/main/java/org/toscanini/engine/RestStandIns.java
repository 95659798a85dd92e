package org.toscanini.engine;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The copy of a process that the embedded ODE runs: each bpel4RestLight call (an
 * {@code <extensionActivity>} holding {@code <rest:GET|POST|PUT|DELETE>}) becomes an invocation
 * of the partner link {@code restLight}, whose one request-response operation {@code call} takes
 * the method, the URI (each {@code $bpelvar[v]} replaced by the value of v), the media types, the
 * body (the {@code request} variable) and the names of the enclosing scopes, and answers the
 * response body, which is copied into the {@code response} variable: an XML body's root
 * element itself, as the extension writes it, else the text. Released ODE has no
 * extension activities (the OpenTOSCA container runs its own build with bpel4RestLight), so
 * {@link RunBpel}'s partner makes the HTTP request the extension would.
 */
final class RestStandIns {
    static final String NS = "urn:toscanini:restlight";

    private static final Pattern EXTENSION = Pattern.compile(
            "<((?:[A-Za-z_][\\w.-]*:)?)extensionActivity\\b[^>]*>\\s*<[A-Za-z_][\\w.-]*:(GET|POST|PUT|DELETE)\\b"
                    + "([^>]*?)/>\\s*</\\1extensionActivity\\s*>",
            Pattern.DOTALL);
    private static final Pattern ATTRIBUTE = Pattern.compile("([\\w.-]+)\\s*=\\s*\"([^\"]*)\"");
    private static final Pattern BPELVAR = Pattern.compile("\\$bpelvar\\[([^\\]]+)\\]");
    private static final Pattern SCOPE_TAG =
            Pattern.compile("<(/?)(?:[A-Za-z_][\\w.-]*:)?(scope|compensationHandler)\\b([^>]*?)(/?)>");
    /** A call of the bus, or of the plan's call process. */
    private static final Pattern INVOKER = Pattern.compile(
            "<((?:[A-Za-z_][\\w.-]*:)?)invoke\\b(?=[^>]*\\bpartnerLink=\"(?:invoker|call)\")[^>]*\\binputVariable=\"([^\"]+)\"[^>]*>");
    private static final Pattern STARTED_BY = Pattern.compile(
            "<(?:[A-Za-z_][\\w.-]*:)?receive\\b(?=[^>]*\\bcreateInstance=\"yes\")[^>]*\\bvariable=\"([^\"]+)\"");
    private static final Pattern VARIABLE =
            Pattern.compile("<(?:[A-Za-z_][\\w.-]*:)?variable\\s+name=\"([^\"]+)\"\\s+(?:type|messageType|element)=\"([^\"]+)\"");
    private static final Pattern NAME = Pattern.compile("\\bname\\s*=\\s*\"([^\"]*)\"");

    private RestStandIns() {
    }

    /**
     * The process text with every bpel4RestLight call replaced, its partner link and import added.
     * A process the plan calls (`called`) passes on the scopes of the plan's call: its bus request
     * names those the request that started it names.
     */
    static String rewrite(String text, boolean called) {
        String startedBy = null;
        if (called) {
            Matcher s = STARTED_BY.matcher(text);
            if (!s.find()) {
                throw new IllegalArgumentException("a called process without a receive that starts it");
            }
            startedBy = s.group(1);
        }
        Matcher m = Pattern.compile(EXTENSION.pattern() + "|" + INVOKER.pattern(), Pattern.DOTALL).matcher(text);
        StringBuilder out = new StringBuilder(text.length() * 2);
        ScopeTracker scopes = new ScopeTracker(text);
        Set<String> elements = elementVariables(text);
        while (m.find()) {
            String chain = scopes.chainAt(m.start());
            String replacement;
            if (m.group(2) != null) {
                Map<String, String> attrs = new LinkedHashMap<>();
                Matcher a = ATTRIBUTE.matcher(m.group(3));
                while (a.find()) {
                    attrs.put(a.group(1), a.group(2));
                }
                replacement = call(m.group(2), attrs, chain, elements.contains(attrs.get("request")));
            } else {
                // The call says where it comes from in a part the run's copies of the WSDLs add.
                String from = startedBy == null ? "<from>" + literal(chain) + "</from>"
                        : "<from variable=\"" + startedBy + "\" part=\"activity\"/>";
                replacement = "<assign><copy>" + from + "<to variable=\"" + m.group(5)
                        + "\" part=\"activity\"/></copy></assign>" + m.group();
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return declare(out.toString());
    }

    /** One call: a scope with the request and response messages, the invoke between two assigns. */
    static String call(String method, Map<String, String> attrs, String chain, boolean elementRequest) {
        StringBuilder s = new StringBuilder();
        s.append("<scope><variables><variable name=\"rlIn\" messageType=\"rl:request\"/>")
                .append("<variable name=\"rlOut\" messageType=\"rl:response\"/></variables><sequence><assign>");
        copy(s, "'" + method + "'", "method");
        copy(s, uri(attrs.getOrDefault("uri", "")), "uri");
        copy(s, literal(attrs.getOrDefault("contenttype", "")), "contentType");
        copy(s, literal(attrs.getOrDefault("accept", "")), "accept");
        copy(s, literal(chain), "activity");
        String request = attrs.get("request");
        if (request != null) {
            // An element keeps its name in the part (the request the extension would send).
            s.append(elementRequest ? "<copy keepSrcElementName=\"yes\">" : "<copy>").append("<from variable=\"")
                    .append(request).append("\"/><to variable=\"rlIn\" part=\"body\"/></copy>");
        } else {
            copy(s, "''", "body");
        }
        s.append("</assign><invoke partnerLink=\"restLight\" operation=\"call\" inputVariable=\"rlIn\" outputVariable=\"rlOut\"/>");
        String response = attrs.get("response");
        if (response != null) {
            // The extension writes an XML response's root element into the variable (the
            // element itself, not ODE's part element around it); any other body as text.
            s.append("<if><condition>count($rlOut.body/*) = 1</condition><assign><copy keepSrcElementName=\"yes\">")
                    .append("<from>$rlOut.body/*</from><to variable=\"").append(response)
                    .append("\"/></copy></assign><else><assign><copy><from variable=\"rlOut\" part=\"body\"/>")
                    .append("<to variable=\"").append(response).append("\"/></copy></assign></else></if>");
        }
        return s.append("</sequence></scope>").toString();
    }

    /** The variables declared xsd:anyType (holding an element) and never as anything else. */
    static Set<String> elementVariables(String text) {
        Set<String> any = new HashSet<>();
        Set<String> other = new HashSet<>();
        Matcher v = VARIABLE.matcher(text);
        while (v.find()) {
            (v.group(2).equals("xsd:anyType") ? any : other).add(v.group(1));
        }
        any.removeAll(other);
        return any;
    }

    private static void copy(StringBuilder s, String from, String part) {
        s.append("<copy><from>").append(from).append("</from><to variable=\"rlIn\" part=\"").append(part)
                .append("\"/></copy>");
    }

    /** The URI as an XPath expression: literal pieces and the values of $bpelvar[v]. */
    static String uri(String template) {
        Matcher v = BPELVAR.matcher(template);
        StringBuilder expr = new StringBuilder("concat(''");
        int at = 0;
        while (v.find()) {
            expr.append(", ").append(literal(template.substring(at, v.start())));
            expr.append(", string($").append(v.group(1)).append(")");
            at = v.end();
        }
        expr.append(", ").append(literal(template.substring(at))).append(")");
        return expr.toString();
    }

    /** An XPath string literal of already XML-escaped text. */
    static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    /** Adds the namespace, the import of the partner's WSDL and the partner link. */
    private static String declare(String text) {
        int process = text.indexOf("<process");
        if (process < 0) {
            throw new IllegalArgumentException("no <process> element (a prefixed BPEL namespace is not supported here)");
        }
        StringBuilder s = new StringBuilder(text);
        int importAt = text.indexOf("<import", process);
        int links = text.indexOf("<partnerLinks>", process);
        if (importAt < 0 || links < 0) {
            throw new IllegalArgumentException("no <import> or <partnerLinks> in the process");
        }
        s.insert(links + "<partnerLinks>".length(),
                "\n<partnerLink name=\"restLight\" partnerLinkType=\"rl:RestLightPLT\" partnerRole=\"Server\"/>");
        s.insert(importAt, "<import namespace=\"" + NS + "\" location=\"" + WSDL_FILE
                + "\" importType=\"http://schemas.xmlsoap.org/wsdl/\"/>\n");
        s.insert(process + "<process".length(), " xmlns:rl=\"" + NS + "\"");
        return s.toString();
    }

    static final String WSDL_FILE = "toscanini-restlight.wsdl";

    /** The partner's interface: one request-response operation, its parts typed loosely. */
    static final String WSDL = """
            <?xml version="1.0" encoding="UTF-8"?>
            <wsdl:definitions name="RestLight" targetNamespace="urn:toscanini:restlight"
                xmlns:tns="urn:toscanini:restlight" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"
                xmlns:xsd="http://www.w3.org/2001/XMLSchema"
                xmlns:plnk="http://docs.oasis-open.org/wsbpel/2.0/plnktype">
              <wsdl:message name="request">
                <wsdl:part name="method" type="xsd:string"/>
                <wsdl:part name="uri" type="xsd:string"/>
                <wsdl:part name="contentType" type="xsd:string"/>
                <wsdl:part name="accept" type="xsd:string"/>
                <wsdl:part name="activity" type="xsd:string"/>
                <wsdl:part name="body" type="xsd:anyType"/>
              </wsdl:message>
              <wsdl:message name="response">
                <wsdl:part name="body" type="xsd:anyType"/>
              </wsdl:message>
              <wsdl:portType name="RestLight">
                <wsdl:operation name="call">
                  <wsdl:input message="tns:request"/>
                  <wsdl:output message="tns:response"/>
                </wsdl:operation>
              </wsdl:portType>
              <plnk:partnerLinkType name="RestLightPLT">
                <plnk:role name="Server" portType="tns:RestLight"/>
              </plnk:partnerLinkType>
              <wsdl:service name="RestLightService">
                <wsdl:port name="RestLightPort" binding="tns:RestLightBinding"/>
              </wsdl:service>
              <wsdl:binding name="RestLightBinding" type="tns:RestLight"/>
            </wsdl:definitions>
            """;

    /** The names of the scopes around a position of the process text, innermost first. */
    private static final class ScopeTracker {
        private final String text;
        private final Deque<String> open = new ArrayDeque<>();
        private final Matcher tags;
        private int at;

        ScopeTracker(String text) {
            this.text = text;
            this.tags = SCOPE_TAG.matcher(text);
        }

        /** Positions must be asked in increasing order. */
        String chainAt(int position) {
            while (tags.find(at) && tags.start() < position) {
                at = tags.end();
                if (!tags.group(4).isEmpty()) {
                    continue; // <scope/>
                }
                if (!tags.group(1).isEmpty()) {
                    open.pop();
                } else if (tags.group(2).equals("scope")) {
                    Matcher n = NAME.matcher(tags.group(3));
                    open.push(n.find() ? n.group(1) : "");
                } else {
                    // What a compensation handler runs undoes its scope: `<scope>_undo`, as in BPMN.
                    String owner = open.stream().filter(s -> !s.isEmpty()).findFirst().orElse("");
                    open.push(owner.isEmpty() ? "" : owner + "_undo");
                }
            }
            StringBuilder s = new StringBuilder();
            String undone = null;
            for (String name : open) {
                if (name.isEmpty() || name.equals(undone)) {
                    continue; // an undo handler is not inside the activity it undoes (as in BPMN)
                }
                undone = name.endsWith("_undo") ? name.substring(0, name.length() - 5) : null;
                s.append(s.length() == 0 ? "" : " ").append(name);
            }
            return s.toString();
        }
    }
}
