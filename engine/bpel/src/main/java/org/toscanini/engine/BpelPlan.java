package org.toscanini.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import javax.xml.namespace.QName;
import org.toscanini.bpel.DeployCheck;
import org.toscanini.bpel.OdeCompile;
import org.toscanini.bpel.Xml;

/**
 * A BPEL plan made ready for the embedded ODE: its package (a plan archive or directory) copied
 * into a directory of its own, its bpel4RestLight calls replaced ({@link RestStandIns}), the bus
 * request given the part that says which scopes sent it, and its processes compiled by ODE: the
 * plan, and the processes of the package it calls (its call process, which ODE runs in the
 * server when the plan invokes it).
 */
final class BpelPlan {
    final String name;
    final QName type;
    final Path dir;
    final OdeDeployment deployment;
    /** The processes of the package the plan calls. */
    final List<OdeDeployment> called = new ArrayList<>();
    /** The plan's input names, in the order of its request element. */
    final List<String> inputs = new ArrayList<>();
    /** The operation outputs the plan reads from the bus's answers. */
    final List<String> outputs;
    final QName requestMessage;
    /** The operation that starts the plan (initiate, terminate, ...). */
    final String operation;
    final QName requestElement;

    private BpelPlan(Path dir, Path bpel, String text, Map<Path, String> calledBpels) throws IOException {
        this.dir = dir;
        this.name = attribute(text, "<process", "name");
        this.type = new QName(attribute(text, "<process", "targetNamespace"), name);
        Path wsdl = dir.resolve(name + ".wsdl");
        String iface = Files.readString(wsdl, StandardCharsets.UTF_8);
        requestElement = new QName(type.getNamespaceURI(), name + "Request");
        requestMessage = new QName(type.getNamespaceURI(), name + "RequestMessage");
        Matcher op = Pattern.compile("<wsdl:operation name=\"([^\"]+)\">").matcher(iface);
        if (!op.find()) {
            throw new IOException(wsdl.getFileName() + ": no operation");
        }
        operation = op.group(1);
        Matcher req = Pattern.compile("<xsd:element name=\"" + Pattern.quote(name + "Request")
                + "\">(.*?)</xsd:element>\\s*</?xsd:", Pattern.DOTALL).matcher(iface);
        if (!req.find()) {
            throw new IOException(wsdl.getFileName() + ": no element " + name + "Request");
        }
        Matcher el = Pattern.compile("<xsd:element name=\"([^\"]+)\"").matcher(req.group(1));
        while (el.find()) {
            inputs.add(el.group(1));
        }
        TreeSet<String> outs = new TreeSet<>();
        Matcher o = Pattern.compile("\\*:key = '([^']+)'").matcher(text);
        while (o.find()) {
            if (!o.group(1).equals("Fault")) {
                outs.add(o.group(1));
            }
        }
        outputs = List.copyOf(outs);
        Files.writeString(dir.resolve(RestStandIns.WSDL_FILE), RestStandIns.WSDL, StandardCharsets.UTF_8);
        addActivityPart(dir.resolve("invoker.wsdl"), INVOKER_PART);
        if (!calledBpels.isEmpty()) {
            addActivityPart(wsdl, CALL_PART);
        }
        deployment = compile(dir, bpel, RestStandIns.rewrite(text, false));
        for (Map.Entry<Path, String> c : calledBpels.entrySet()) {
            called.add(compile(dir, c.getKey(), RestStandIns.rewrite(c.getValue(), true)));
        }
    }

    /** Writes the process as run into `bpel`, has ODE compile it, and deploys it. */
    private static OdeDeployment compile(Path dir, Path bpel, String rewritten) throws IOException {
        Files.writeString(bpel, rewritten, StandardCharsets.UTF_8);
        OdeCompile.Outcome out;
        try {
            out = OdeCompile.compile(dir, bpel, Xml.parse(bpel));
        } catch (org.xml.sax.SAXException e) {
            throw new IOException("the rewritten process is not XML: " + e.getMessage(), e);
        }
        if (!out.errors.isEmpty() || out.process == null) {
            throw new IOException("ODE does not compile " + bpel.getFileName() + " as run: " + out.errors);
        }
        String base = bpel.getFileName().toString().replaceAll("\\.bpel$", "");
        return new OdeDeployment(processName(rewritten), dir, bpel, dir.resolve(base + ".cbp"));
    }

    /** Every process of the plan: the plan first. */
    List<OdeDeployment> deployments() {
        List<OdeDeployment> all = new ArrayList<>();
        all.add(deployment);
        all.addAll(called);
        return all;
    }

    /** Stages and compiles the plan at `path` (a plan archive, its directory, or its .bpel). */
    static BpelPlan load(Path path, Path work) throws IOException {
        Path dir = Files.createTempDirectory(work, "plan");
        if (Files.isDirectory(path)) {
            try (Stream<Path> files = Files.list(path)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    Files.copy(f, dir.resolve(f.getFileName().toString()));
                }
            }
        } else if (path.toString().endsWith(".bpel")) {
            return load(path.toAbsolutePath().getParent(), work);
        } else {
            unzip(path, dir);
        }
        // The plan is the process no other process of the package invokes.
        Set<QName> called = DeployCheck.called(DeployCheck.calls(dir));
        Map<Path, String> plans = new TreeMap<>();
        Map<Path, String> calledBpels = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".bpel")).toList()) {
                String text = Files.readString(f, StandardCharsets.UTF_8);
                (called.contains(processName(text)) ? calledBpels : plans).put(f, text);
            }
        }
        if (plans.size() != 1) {
            throw new IOException(path + ": " + plans.size() + " .bpel files no other process calls, one plan expected");
        }
        Map.Entry<Path, String> plan = plans.entrySet().iterator().next();
        return new BpelPlan(dir, plan.getKey(), plan.getValue(), calledBpels);
    }

    private static void unzip(Path zip, Path dir) throws IOException {
        try (InputStream in = Files.newInputStream(zip); ZipInputStream z = new ZipInputStream(in)) {
            for (ZipEntry e; (e = z.getNextEntry()) != null; ) {
                Path to = dir.resolve(e.getName()).normalize();
                if (!to.startsWith(dir)) {
                    throw new IOException(zip + ": entry " + e.getName() + " escapes the package");
                }
                if (e.isDirectory()) {
                    Files.createDirectories(to);
                } else {
                    Files.createDirectories(to.getParent());
                    Files.copy(z, to);
                }
            }
        }
    }

    private static final String INVOKER_PART =
            "<wsdl:part name=\"invokeOperationAsync\" element=\"invs:invokeOperationAsync\"/>";
    private static final String CALL_PART = "<wsdl:part name=\"call\" element=\"tns:call\"/>";

    /**
     * The run's copy of a request (the bus's, and the plan's call of its call process) names the
     * scopes that sent it (part `activity`, after `part`).
     */
    private static void addActivityPart(Path wsdl, String part) throws IOException {
        String text = Files.readString(wsdl, StandardCharsets.UTF_8);
        if (!text.contains(part)) {
            throw new IOException(wsdl.getFileName() + ": no part " + part);
        }
        Files.writeString(wsdl, text.replace(part, part + "<wsdl:part name=\"activity\" type=\"xsd:string\"/>"),
                StandardCharsets.UTF_8);
    }

    /** The name of the process `text` defines. */
    private static QName processName(String text) throws IOException {
        return new QName(attribute(text, "<process", "targetNamespace"), attribute(text, "<process", "name"));
    }

    private static String attribute(String text, String element, String name) throws IOException {
        int at = text.indexOf(element);
        int end = at < 0 ? -1 : text.indexOf('>', at);
        Matcher m = Pattern.compile("\\b" + name + "=\"([^\"]*)\"").matcher(end < 0 ? "" : text.substring(at, end));
        if (!m.find()) {
            throw new IOException("no " + name + " on " + element + ">");
        }
        return m.group(1);
    }
}
