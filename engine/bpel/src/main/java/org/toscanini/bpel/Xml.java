package org.toscanini.bpel;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.ls.LSInput;
import org.w3c.dom.ls.LSResourceResolver;
import org.xml.sax.Attributes;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/** XML helpers: offline parsing and validation against the schemas shipped in ODE's jars. */
public final class Xml {
    static final String BPEL = "http://docs.oasis-open.org/wsbpel/2.0/process/executable";
    static final String DD = "http://www.apache.org/ode/schemas/dd/2007/03";
    static final String WSDL = "http://schemas.xmlsoap.org/wsdl/";

    /** Where ode-bpel-schemas keeps ODE's deployment descriptor schema. */
    static final String DD_XSD = "schemaorg_apache_xmlbeans/src/bpel-schemas/src/main/xsd/dd.xsd";
    /** The WS-BPEL 2.0 executable process schema, as ode-bpel-schemas ships it. */
    static final String BPEL_XSD = "ws-bpel_executable.xsd";

    private Xml() {
    }

    /**
     * Parses {@code file} into a namespace-aware DOM whose elements carry their start line as
     * user data {@link #LINE}. External entities and DTDs are not loaded.
     */
    public static Document parse(Path file) throws IOException, SAXException {
        try {
            SAXParserFactory f = SAXParserFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
            f.newSAXParser().parse(file.toFile(), new DomBuilder(doc));
            return doc;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The user-data key under which {@link #parse} stores an element's line (an Integer). */
    static final String LINE = "line";

    static int line(Node n) {
        Object l = n.getUserData(LINE);
        return l instanceof Integer i ? i : 0;
    }

    private static final class DomBuilder extends DefaultHandler {
        private final Document doc;
        private Node current;
        private Locator locator;
        private final Map<String, String> pendingPrefixes = new LinkedHashMap<>();

        DomBuilder(Document doc) {
            this.doc = doc;
            this.current = doc;
        }

        @Override
        public void setDocumentLocator(Locator locator) {
            this.locator = locator;
        }

        @Override
        public void startPrefixMapping(String prefix, String uri) {
            pendingPrefixes.put(prefix, uri);
        }

        @Override
        public void startElement(String uri, String local, String qName, Attributes atts) {
            Element e = doc.createElementNS(uri.isEmpty() ? null : uri, qName);
            for (Map.Entry<String, String> p : pendingPrefixes.entrySet()) {
                String name = p.getKey().isEmpty() ? "xmlns" : "xmlns:" + p.getKey();
                e.setAttributeNS(XMLConstants.XMLNS_ATTRIBUTE_NS_URI, name, p.getValue());
            }
            pendingPrefixes.clear();
            for (int i = 0; i < atts.getLength(); i++) {
                String ans = atts.getURI(i);
                e.setAttributeNS(ans.isEmpty() ? null : ans, atts.getQName(i), atts.getValue(i));
            }
            if (locator != null) {
                e.setUserData(LINE, locator.getLineNumber(), null);
            }
            current.appendChild(e);
            current = e;
        }

        @Override
        public void endElement(String uri, String local, String qName) {
            current = current.getParentNode();
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (current != doc) {
                current.appendChild(doc.createTextNode(new String(ch, start, length)));
            }
        }

        @Override
        public InputSource resolveEntity(String publicId, String systemId) throws SAXException {
            throw new SAXException("external entity " + systemId + " refused");
        }
    }

    /**
     * Loads a schema from the class path. Imports of well-known W3C schemas by their web address
     * are answered from the copies in the same jar, so nothing is fetched.
     */
    static Schema schema(String resource) {
        URL url = Xml.class.getClassLoader().getResource(resource);
        if (url == null) {
            throw new IllegalStateException(resource + " is not on the class path (ode-bpel-schemas missing?)");
        }
        try (InputStream in = url.openStream()) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            // ODE 1.3.7's copy of the WS-BPEL schema adds a "route" attribute to <receive> and
            // <onMessage> written with the prefix xs, which it never binds (its own parser never
            // loads the schema). Bind it to the XML Schema namespace so the schema can be used.
            if (text.contains("<xs:") && !text.contains("xmlns:xs=")) {
                text = text.replaceFirst("<xsd:schema\\s", "<xsd:schema xmlns:xs=\"" + XMLConstants.W3C_XML_SCHEMA_NS_URI + "\" ");
            }
            SchemaFactory sf = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            sf.setResourceResolver(new LocalResolver());
            return sf.newSchema(new StreamSource(new StringReader(text), url.toString()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource + ": " + e.getMessage(), e);
        } catch (SAXException e) {
            throw new IllegalStateException("cannot load " + resource + ": " + e.getMessage(), e);
        }
    }

    /** Validates {@code file} against {@code schema}; each error as a problem of {@code name}. */
    static List<Problem> validate(Schema schema, Path file, String name) {
        List<Problem> problems = new ArrayList<>();
        Validator v = schema.newValidator();
        v.setErrorHandler(new ErrorHandler() {
            @Override
            public void warning(SAXParseException e) {
            }

            @Override
            public void error(SAXParseException e) {
                problems.add(new Problem(name, e.getLineNumber(), shorten(e.getMessage())));
            }

            @Override
            public void fatalError(SAXParseException e) throws SAXException {
                throw e;
            }
        });
        try {
            v.validate(new StreamSource(file.toFile()));
        } catch (SAXParseException e) {
            problems.add(new Problem(name, e.getLineNumber(), e.getMessage()));
        } catch (SAXException | IOException e) {
            problems.add(new Problem(name, 0, e.getMessage()));
        }
        return problems;
    }

    /** Validator messages spell out each expected element's namespace: use the usual prefixes. */
    private static String shorten(String message) {
        return message == null ? "" : message.replace("\"" + BPEL + "\":", "bpel:").replace("\"" + DD + "\":", "dd:");
    }

    public static List<Element> children(Node parent, String ns, String local) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && ns.equals(e.getNamespaceURI())
                    && (local == null || local.equals(e.getLocalName()))) {
                out.add(e);
            }
        }
        return out;
    }

    public static Element child(Node parent, String ns, String local) {
        List<Element> c = children(parent, ns, local);
        return c.isEmpty() ? null : c.get(0);
    }

    /** Resolves imports of xml.xsd (and anything else in the schema jar) locally. */
    private static final class LocalResolver implements LSResourceResolver {
        @Override
        public LSInput resolveResource(String type, String namespaceURI, String publicId, String systemId,
                String baseURI) {
            if ("http://www.w3.org/XML/1998/namespace".equals(namespaceURI)) {
                URL local = Xml.class.getClassLoader().getResource("xml.xsd");
                if (local != null) {
                    return new Input(local.toString(), publicId);
                }
            }
            if (systemId != null && (systemId.startsWith("http:") || systemId.startsWith("https:"))) {
                throw new IllegalStateException("schema import of " + systemId + " would need the network");
            }
            return null;
        }
    }

    private record Input(String systemId, String publicId) implements LSInput {
        @Override
        public String getSystemId() {
            return systemId;
        }

        @Override
        public String getPublicId() {
            return publicId;
        }

        @Override
        public Reader getCharacterStream() {
            return null;
        }

        @Override
        public void setCharacterStream(Reader r) {
        }

        @Override
        public InputStream getByteStream() {
            return null;
        }

        @Override
        public void setByteStream(InputStream s) {
        }

        @Override
        public String getStringData() {
            return null;
        }

        @Override
        public void setStringData(String s) {
        }

        @Override
        public void setSystemId(String s) {
        }

        @Override
        public void setPublicId(String s) {
        }

        @Override
        public String getBaseURI() {
            return null;
        }

        @Override
        public void setBaseURI(String s) {
        }

        @Override
        public String getEncoding() {
            return null;
        }

        @Override
        public void setEncoding(String s) {
        }

        @Override
        public boolean getCertifiedText() {
            return false;
        }

        @Override
        public void setCertifiedText(boolean b) {
        }
    }
}
