package org.toscanini.engine;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.wsdl.Definition;
import javax.wsdl.WSDLException;
import javax.wsdl.factory.WSDLFactory;
import javax.wsdl.xml.WSDLReader;
import javax.xml.namespace.QName;
import org.toscanini.bpel.Xml;
import org.apache.ode.bpel.evt.BpelEvent;
import org.apache.ode.bpel.iapi.Endpoint;
import org.apache.ode.bpel.iapi.EndpointReference;
import org.apache.ode.bpel.iapi.ProcessConf;
import org.apache.ode.bpel.iapi.ProcessState;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * One compiled process as ODE's server takes it (what ODE's process store would give): its
 * compiled form, the endpoints deploy.xml binds its partner links to (and the stand-in partner
 * {@code restLight}), and the WSDL definitions of the package.
 */
final class OdeDeployment implements ProcessConf {
    static final String DD = "http://www.apache.org/ode/schemas/dd/2007/03";

    private final QName type;
    private final Path dir;
    private final Path bpel;
    private final Path cbp;
    private final Map<String, Endpoint> provide = new LinkedHashMap<>();
    private final Map<String, Endpoint> invoke = new LinkedHashMap<>();
    private final List<Definition> definitions = new ArrayList<>();
    private final Date deployed = new Date();

    OdeDeployment(QName type, Path dir, Path bpel, Path cbp) throws IOException {
        this.type = type;
        this.dir = dir;
        this.bpel = bpel;
        this.cbp = cbp;
        readDeployXml(dir.resolve("deploy.xml"));
        invoke.put("restLight", new Endpoint(new QName(RestStandIns.NS, "RestLightService"), "RestLightPort"));
        readDefinitions();
    }

    private void readDeployXml(Path file) throws IOException {
        Document doc;
        try {
            doc = Xml.parse(file);
        } catch (org.xml.sax.SAXException e) {
            throw new IOException("deploy.xml: " + e.getMessage(), e);
        }
        for (Element process : Xml.children(doc.getDocumentElement(), DD, "process")) {
            QName name = qname(process, process.getAttribute("name"));
            if (!name.equals(type)) {
                continue;
            }
            for (String kind : List.of("provide", "invoke")) {
                for (Element e : Xml.children(process, DD, kind)) {
                    Element service = Xml.children(e, DD, "service").stream().findFirst()
                            .orElseThrow(() -> new IOException("deploy.xml: <" + kind + "> without <service>"));
                    Endpoint ep = new Endpoint(qname(service, service.getAttribute("name")),
                            service.getAttribute("port"));
                    (kind.equals("provide") ? provide : invoke).put(e.getAttribute("partnerLink"), ep);
                }
            }
        }
        if (provide.isEmpty()) {
            throw new IOException("deploy.xml names no endpoint of process " + type);
        }
    }

    /** A prefixed name of an attribute value, resolved where it is written. */
    static QName qname(Element at, String prefixed) {
        int colon = prefixed.indexOf(':');
        String prefix = colon < 0 ? null : prefixed.substring(0, colon);
        String ns = at.lookupNamespaceURI(prefix);
        return new QName(ns == null ? "" : ns, prefixed.substring(colon + 1));
    }

    private void readDefinitions() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".wsdl")).sorted().toList()) {
                try {
                    WSDLReader reader = WSDLFactory.newInstance().newWSDLReader();
                    reader.setFeature("javax.wsdl.verbose", false);
                    definitions.add(reader.readWSDL(f.toUri().toString()));
                } catch (WSDLException e) {
                    throw new IOException(f.getFileName() + ": " + e.getMessage(), e);
                }
            }
        }
    }

    /** The endpoint of a partner link's my role (the services the run sends messages to). */
    Endpoint provided(String partnerLink) {
        return provide.get(partnerLink);
    }

    Map<String, Endpoint> provided() {
        return provide;
    }

    @Override
    public QName getProcessId() {
        return new QName(type.getNamespaceURI(), type.getLocalPart() + "-1");
    }

    @Override
    public QName getType() {
        return type;
    }

    @Override
    public long getVersion() {
        return 1;
    }

    @Override
    public boolean isTransient() {
        // ODE's in-memory DAO keeps instances in memory; such processes must say so.
        return true;
    }

    @Override
    public InputStream getCBPInputStream() {
        try {
            return Files.newInputStream(cbp);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long getCBPFileSize() {
        return cbp.toFile().length();
    }

    @Override
    public String getBpelDocument() {
        return bpel.getFileName().toString();
    }

    @Override
    public URI getBaseURI() {
        return dir.toUri();
    }

    @Override
    public Date getDeployDate() {
        return deployed;
    }

    @Override
    public String getDeployer() {
        return "toscanini";
    }

    @Override
    public ProcessState getState() {
        return ProcessState.ACTIVE;
    }

    @Override
    public List<File> getFiles() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(Path::toFile).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    @Override
    public Map<QName, Node> getProcessProperties() {
        return Map.of();
    }

    @Override
    public String getPackage() {
        return dir.getFileName().toString();
    }

    /** wsdl4j's lookups search a definition's imports too. */
    @Override
    public Definition getDefinitionForService(QName service) {
        return definitions.stream().filter(d -> d.getService(service) != null).findFirst().orElse(null);
    }

    @Override
    public Definition getDefinitionForPortType(QName portType) {
        return definitions.stream().filter(d -> d.getPortType(portType) != null).findFirst().orElse(null);
    }

    @Override
    public Map<String, Endpoint> getProvideEndpoints() {
        return provide;
    }

    @Override
    public Map<String, Endpoint> getInvokeEndpoints() {
        return invoke;
    }

    @Override
    public Map<String, PartnerRoleConfig> getPartnerRoleConfig() {
        return new HashMap<>();
    }

    @Override
    public boolean isSharedService(QName service) {
        return false;
    }

    @Override
    public List<Element> getExtensionElement(QName name) {
        return List.of();
    }

    @Override
    public boolean isEventEnabled(List<String> scopeNames, BpelEvent.TYPE type) {
        return true;
    }

    @Override
    public Map<String, String> getEndpointProperties(EndpointReference epr) {
        return new HashMap<>();
    }

    @Override
    public boolean isCleanupCategoryEnabled(boolean instanceSucceeded, CLEANUP_CATEGORY category) {
        return false;
    }

    @Override
    public Set<CLEANUP_CATEGORY> getCleanupCategories(boolean instanceSucceeded) {
        return Set.of();
    }

    @Override
    public List<CronJob> getCronJobs() {
        return List.of();
    }
}
