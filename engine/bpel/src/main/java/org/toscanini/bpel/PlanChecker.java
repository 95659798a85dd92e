package org.toscanini.bpel;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

import javax.xml.namespace.QName;
import javax.xml.validation.Schema;

import org.apache.ode.bpel.o.OProcess;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** Checks one plan: stages its package in a temporary directory, compiles, validates. */
final class PlanChecker {
    /** Limits for unpacking an archive (a plan is a few tens of kB). */
    static final long MAX_UNPACKED_BYTES = 256L << 20;
    static final int MAX_ENTRIES = 10_000;

    /** Separates a CSAR from the path of a plan archive inside it, as in {@code x.csar!/Plans/p.zip}. */
    static final String IN_ARCHIVE = "!/";

    /** The outcome for one plan. */
    record Result(String plan, String failure, List<Problem> problems, List<String> notes) {
        boolean ok() {
            return failure == null;
        }
    }

    /** A plan that cannot even be looked at: one line, no details. */
    static final class BadPlan extends Exception {
        private static final long serialVersionUID = 1L;

        BadPlan(String message) {
            super(message);
        }
    }

    private final Schema dd = Xml.schema(Xml.DD_XSD);
    private final Schema bpelSchema = Xml.schema(Xml.BPEL_XSD);
    private final boolean keep;

    PlanChecker(boolean keep) {
        this.keep = keep;
    }

    Result check(String plan) {
        Path stage = null;
        List<String> notes = new ArrayList<>();
        try {
            stage = Files.createTempDirectory("toscanini-bpel-");
            LIVE.add(stage);
            stagePackage(plan, stage);
            if (keep) {
                notes.add("staged in " + stage);
            }
            return checkPackage(plan, stage, notes);
        } catch (BadPlan e) {
            return new Result(plan, e.getMessage(), List.of(), notes);
        } catch (IOException e) {
            return new Result(plan, "cannot read the plan: " + OdeCompile.describe(e), List.of(), notes);
        } finally {
            if (stage != null) {
                LIVE.remove(stage);
                if (!keep) {
                    deleteTree(stage);
                }
            }
        }
    }

    /** The staged packages of the checks still running. */
    private static final Set<Path> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Removes what checks that were given up on (and are still running) have staged. */
    static void deleteAbandoned() {
        for (Path p : LIVE) {
            deleteTree(p);
        }
    }

    private Result checkPackage(String plan, Path pkg, List<String> notes) throws IOException, BadPlan {
        List<Path> bpels;
        try (Stream<Path> s = Files.walk(pkg, 8)) {
            bpels = s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                    && p.getFileName().toString().toLowerCase().endsWith(".bpel")).sorted().toList();
        }
        if (bpels.isEmpty()) {
            throw new BadPlan("not a BPEL plan: no .bpel file in it");
        }
        if (!Files.isRegularFile(pkg.resolve(DeployCheck.NAME))) {
            throw new BadPlan("not an ODE deployment unit: no deploy.xml beside "
                    + OdeCompile.rel(pkg, bpels.get(0)));
        }
        List<Problem> errors = new ArrayList<>();
        List<Problem> warnings = new ArrayList<>();
        Map<QName, OProcess> compiled = new LinkedHashMap<>();
        Map<QName, String> defined = new LinkedHashMap<>();
        boolean unreadable = false;
        List<DeployCheck.Call> calls = DeployCheck.calls(pkg);
        Set<QName> called = DeployCheck.called(calls);
        for (Path bpel : bpels) {
            String name = OdeCompile.rel(pkg, bpel);
            Document doc;
            try {
                doc = Xml.parse(bpel);
            } catch (org.xml.sax.SAXParseException e) {
                errors.add(new Problem(name, e.getLineNumber(), "not well-formed XML: " + e.getMessage()));
                unreadable = true;
                continue;
            } catch (Exception e) {
                errors.add(new Problem(name, 0, "cannot be read: " + OdeCompile.describe(e)));
                unreadable = true;
                continue;
            }
            Element root = doc.getDocumentElement();
            if (!Xml.BPEL.equals(root.getNamespaceURI()) || !"process".equals(root.getLocalName())) {
                errors.add(new Problem(name, Xml.line(root), "not a WS-BPEL 2.0 executable process: root element is {"
                        + root.getNamespaceURI() + "}" + root.getLocalName()));
                unreadable = true;
                continue;
            }
            QName qn = new QName(root.getAttribute("targetNamespace"), root.getAttribute("name"));
            defined.putIfAbsent(qn, name);
            // ODE's object model skips elements it does not know, so a misspelt activity would
            // vanish silently: validate against the WS-BPEL 2.0 schema first.
            errors.addAll(Xml.validate(bpelSchema, bpel, name));
            ExtensionCheck ext = ExtensionCheck.run(doc, name, errors);
            if (called.contains(qn)) {
                notes.add(name + ": a process the plan calls, not a plan (no plan instance of its own)");
            } else {
                PlanInstanceCheck.run(doc, name, errors);
            }
            InitialValueCheck.run(doc, name, errors);
            if (ext.restLightActivities > 0) {
                notes.add(name + ": " + ext.restLightActivities + " bpel4RestLight extension activities,"
                        + " an <empty> each for ODE's compiler, checked structurally only");
            }
            ExtensionStandIns.write(bpel);
            OdeCompile.Outcome out = compileQuietly(pkg, bpel, doc, notes);
            errors.addAll(out.errors);
            warnings.addAll(out.warnings);
            if (!out.toleratedWarnings.isEmpty()) {
                notes.add(name + ": " + out.toleratedWarnings.size() + " warnings about WS-BPEL extensions"
                        + " tolerated, e.g. " + out.toleratedWarnings.get(0).message());
            }
            notes.addAll(out.notes);
            if (out.process != null && out.errors.isEmpty()) {
                compiled.put(out.process.getQName(), out.process);
            }
        }
        DeployCheck.run(dd, pkg, compiled, defined, unreadable, wsdlServices(pkg, errors), errors);
        P2pTimeoutCheck.run(pkg, calls, errors);

        List<Problem> all = new ArrayList<>();
        for (Problem p : errors) {
            all.add(new Problem(p.file(), p.line(), "error: " + p.message()));
        }
        for (Problem p : warnings) {
            all.add(new Problem(p.file(), p.line(), "warning: " + p.message()));
        }
        if (all.isEmpty()) {
            return new Result(plan, null, all, notes);
        }
        String summary = count(errors.size(), "error") + ", " + count(warnings.size(), "warning");
        return new Result(plan, summary, all, notes);
    }

    /** What the current thread writes to standard error, while {@link #compileQuietly} runs. */
    private static final ThreadLocal<ByteArrayOutputStream> CAPTURED = new ThreadLocal<>();

    static {
        // ODE's parser reports fatal XML errors on standard error too. Route what a compiling
        // thread writes there into its own buffer: the message reaches the report as a note,
        // and a thread given up after a timeout cannot disturb the next plan's output.
        PrintStream original = System.err;
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                ByteArrayOutputStream buf = CAPTURED.get();
                if (buf != null) {
                    buf.write(b);
                } else {
                    original.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                ByteArrayOutputStream buf = CAPTURED.get();
                if (buf != null) {
                    buf.write(b, off, len);
                } else {
                    original.write(b, off, len);
                }
            }

            @Override
            public void flush() {
                original.flush();
            }
        }, true, StandardCharsets.UTF_8));
    }

    private static OdeCompile.Outcome compileQuietly(Path pkg, Path bpel, Document doc, List<String> notes) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        CAPTURED.set(buf);
        try {
            return OdeCompile.compile(pkg, bpel, doc);
        } finally {
            CAPTURED.remove();
            String said = buf.toString(StandardCharsets.UTF_8).strip();
            if (!said.isEmpty()) {
                notes.add("ODE printed: " + said.replaceAll("\\s*\\R\\s*", " | "));
            }
        }
    }

    private static String count(int n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }

    /** The services (with their ports) that the WSDL files of the package define. */
    private static Map<QName, Set<String>> wsdlServices(Path pkg, List<Problem> errors) throws IOException {
        Map<QName, Set<String>> services = new LinkedHashMap<>();
        List<Path> wsdls;
        try (Stream<Path> s = Files.walk(pkg, 8)) {
            wsdls = s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                    && p.getFileName().toString().toLowerCase().endsWith(".wsdl")).sorted().toList();
        }
        for (Path w : wsdls) {
            Document doc;
            try {
                doc = Xml.parse(w);
            } catch (Exception e) {
                errors.add(new Problem(OdeCompile.rel(pkg, w), 0, "not well-formed XML: " + e.getMessage()));
                continue;
            }
            Element defs = doc.getDocumentElement();
            String tns = defs.getAttribute("targetNamespace");
            for (Element svc : Xml.children(defs, Xml.WSDL, "service")) {
                Set<String> ports = services.computeIfAbsent(new QName(tns, svc.getAttribute("name")),
                        k -> new LinkedHashSet<>());
                for (Element port : Xml.children(svc, Xml.WSDL, "port")) {
                    ports.add(port.getAttribute("name"));
                }
            }
        }
        return services;
    }

    // ---- staging ---------------------------------------------------------------------------

    /** Copies or unpacks the package that {@code plan} denotes into {@code stage}. */
    static void stagePackage(String plan, Path stage) throws IOException, BadPlan {
        int bang = plan.indexOf(IN_ARCHIVE);
        if (bang > 0) {
            Path outer = Path.of(plan.substring(0, bang));
            String entry = plan.substring(bang + IN_ARCHIVE.length());
            try (ZipFile zf = openZip(outer)) {
                ZipEntry e = zf.getEntry(entry);
                if (e == null || e.isDirectory()) {
                    throw new BadPlan("no entry " + entry + " in " + outer);
                }
                try (InputStream in = zf.getInputStream(e)) {
                    unzip(in, stage);
                }
            }
            return;
        }
        Path p = Path.of(plan);
        if (Files.isDirectory(p)) {
            if (!Files.exists(p.resolve(DeployCheck.NAME)) && !hasBpel(p)) {
                throw new BadPlan("not a plan: no .bpel file and no deploy.xml in the directory");
            }
            copyTree(p, stage);
        } else if (!Files.exists(p)) {
            throw new BadPlan("no such file or directory");
        } else if (p.getFileName().toString().toLowerCase().endsWith(".bpel")) {
            Path dir = p.toAbsolutePath().getParent();
            copyTree(dir, stage);
        } else if (isZip(p)) {
            try (InputStream in = new BufferedInputStream(Files.newInputStream(p))) {
                unzip(in, stage);
            }
        } else {
            throw new BadPlan("not a plan: expected a plan archive (.zip), a plan directory or a .bpel file");
        }
    }

    private static boolean hasBpel(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.anyMatch(f -> f.getFileName().toString().toLowerCase().endsWith(".bpel"));
        }
    }

    static boolean isZip(Path p) throws IOException {
        if (!Files.isRegularFile(p)) {
            return false;
        }
        try (InputStream in = Files.newInputStream(p)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
        }
    }

    static ZipFile openZip(Path p) throws IOException, BadPlan {
        try {
            return new ZipFile(p.toFile());
        } catch (java.util.zip.ZipException e) {
            throw new BadPlan("not a readable zip archive: " + e.getMessage());
        }
    }

    /** Unpacks a zip stream into {@code dir}, refusing entries that would land outside it. */
    static void unzip(InputStream raw, Path dir) throws IOException, BadPlan {
        Path root = dir.toAbsolutePath().normalize();
        long total = 0;
        int count = 0;
        try (ZipInputStream zin = new ZipInputStream(raw)) {
            ZipEntry e;
            while ((e = zin.getNextEntry()) != null) {
                if (++count > MAX_ENTRIES) {
                    throw new BadPlan("archive has more than " + MAX_ENTRIES + " entries");
                }
                String name = e.getName().replace('\\', '/');
                Path target = root.resolve(name).normalize();
                if (name.startsWith("/") || !target.startsWith(root) || target.equals(root) && !e.isDirectory()) {
                    throw new BadPlan("archive entry " + e.getName() + " escapes the directory it is unpacked to");
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                    continue;
                }
                Files.createDirectories(target.getParent());
                byte[] chunk = new byte[8192];
                try (var out = Files.newOutputStream(target)) {
                    int n;
                    while ((n = zin.read(chunk)) > 0) {
                        total += n;
                        if (total > MAX_UNPACKED_BYTES) {
                            throw new BadPlan("archive unpacks to more than " + (MAX_UNPACKED_BYTES >> 20) + " MiB");
                        }
                        out.write(chunk, 0, n);
                    }
                }
            }
        } catch (java.util.zip.ZipException e) {
            throw new BadPlan("not a readable zip archive: " + e.getMessage());
        }
        if (count == 0) {
            throw new BadPlan("not a plan: the archive is empty or not a zip archive");
        }
    }

    private static void copyTree(Path from, Path to) throws IOException, BadPlan {
        Path src = from.toAbsolutePath().normalize();
        long total = 0;
        int count = 0;
        try (Stream<Path> s = Files.walk(src, 8)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (Files.isSymbolicLink(p)) {
                    continue;
                }
                Path t = to.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else if (Files.isRegularFile(p)) {
                    total += Files.size(p);
                    if (++count > MAX_ENTRIES || total > MAX_UNPACKED_BYTES) {
                        throw new BadPlan("not a plan package: " + src + " holds more than " + MAX_ENTRIES
                                + " files or " + (MAX_UNPACKED_BYTES >> 20) + " MiB");
                    }
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // a temporary directory left behind is not worth failing a plan for
        }
    }
}
