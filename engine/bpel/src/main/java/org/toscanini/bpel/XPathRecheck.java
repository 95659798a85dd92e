package org.toscanini.bpel;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import javax.xml.XMLConstants;
import javax.xml.namespace.NamespaceContext;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathExpressionException;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Settles what ODE 1.3.x's XPath 2.0 compiler only logs ("Couldn't validate properly expression
 * E"). That compiler first compiles the whole expression with Saxon and then, to resolve
 * variables and functions early, compiles pieces it cuts out of the expression by text patterns;
 * a failure of either is logged the same way and swallowed. A piece can be invalid when the whole
 * is fine: {@code string-length(x)} yields the piece {@code length(x)}, {@code f(x)[last()]} the
 * piece {@code f(x)[last()} (the pattern does not know '-' and '[').
 * <p>
 * So the whole expression is compiled again here, with the same Saxon XPath 2.0 engine and the
 * namespaces in scope where it stands in the process. If that fails, ODE would fail to evaluate
 * it at run time too: an error. If it compiles, ODE's complaint was about one of its pieces.
 */
final class XPathRecheck {
    static final String LOGGED = "Couldn't validate properly expression ";

    /** Where an expression stands and what Saxon makes of it. */
    record Verdict(int line, String error) {
    }

    private XPathRecheck() {
    }

    static Verdict check(Document bpel, String expression) {
        Element at = locate(bpel, expression);
        int line = at == null ? 0 : Xml.line(at);
        try {
            XPath xp = new net.sf.saxon.xpath.XPathFactoryImpl().newXPath();
            Element scope = at == null ? bpel.getDocumentElement() : at;
            xp.setNamespaceContext(new DomNamespaces(scope));
            // Any function and variable is accepted: ODE checks those itself and reports them
            // as compilation errors; what is wanted here is whether the expression parses and
            // passes Saxon's static checks.
            xp.setXPathFunctionResolver((name, arity) -> args -> "");
            xp.setXPathVariableResolver(name -> "");
            xp.compile(expression);
            return new Verdict(line, null);
        } catch (XPathExpressionException e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            String m = c.getMessage() == null ? e.getMessage() : c.getMessage();
            return new Verdict(line, m == null ? c.getClass().getSimpleName() : m.strip());
        }
    }

    /** The first element of the process whose text is the expression (ODE trims it too). */
    private static Element locate(Document doc, String expression) {
        NodeList all = doc.getElementsByTagNameNS(Xml.BPEL, "*");
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            StringBuilder text = new StringBuilder();
            boolean onlyText = true;
            for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n.getNodeType() == Node.TEXT_NODE || n.getNodeType() == Node.CDATA_SECTION_NODE) {
                    text.append(n.getNodeValue());
                } else if (n.getNodeType() == Node.ELEMENT_NODE) {
                    onlyText = false;
                    break;
                }
            }
            if (onlyText && text.toString().strip().equals(expression.strip())) {
                return e;
            }
        }
        return null;
    }

    private static final class DomNamespaces implements NamespaceContext {
        private final Element scope;

        DomNamespaces(Element scope) {
            this.scope = scope;
        }

        @Override
        public String getNamespaceURI(String prefix) {
            if (prefix == null) {
                throw new IllegalArgumentException("null prefix");
            }
            if (prefix.equals(XMLConstants.XML_NS_PREFIX)) {
                return XMLConstants.XML_NS_URI;
            }
            String ns = scope.lookupNamespaceURI(prefix.isEmpty() ? null : prefix);
            return ns == null ? XMLConstants.NULL_NS_URI : ns;
        }

        @Override
        public String getPrefix(String uri) {
            return scope.lookupPrefix(uri);
        }

        @Override
        public Iterator<String> getPrefixes(String uri) {
            List<String> l = new ArrayList<>();
            String p = getPrefix(uri);
            if (p != null) {
                l.add(p);
            }
            return l.iterator();
        }
    }
}
