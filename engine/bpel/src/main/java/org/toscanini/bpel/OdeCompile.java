package org.toscanini.bpel;

import java.io.File;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.ode.bpel.compiler.BpelC;
import org.apache.ode.bpel.compiler.api.CompilationException;
import org.apache.ode.bpel.compiler.api.CompilationMessage;
import org.apache.ode.bpel.compiler.api.SourceLocation;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.o.Serializer;
import org.apache.ode.utils.xsl.XslTransformHandler;
import org.w3c.dom.Document;

/** Compiles one BPEL file of a plan package with Apache ODE's compiler ({@link BpelC}). */
public final class OdeCompile {
    /** The namespace of the BPEL4REST light extension of the OpenTOSCA container's ODE. */
    static final String BPEL4RESTLIGHT = "http://www.apache.org/ode/bpel/extensions/bpel4restlight";

    /** What compiling one .bpel file gave. */
    public static final class Outcome {
        public final List<Problem> errors = new ArrayList<>();
        final List<Problem> warnings = new ArrayList<>();
        /** Warnings that are about the bpel4RestLight extension, which released ODE lacks. */
        final List<Problem> toleratedWarnings = new ArrayList<>();
        /** What ODE logged and this check let pass, with the reason (for --verbose). */
        final List<String> notes = new ArrayList<>();
        /** The compiled process, read back from the .cbp that ODE wrote; null if it failed. */
        public OProcess process;
    }

    static {
        // ODE's XPath 2.0 expression compiler installs Saxon as the XSL transformer factory when
        // it is first created; BpelC's clean-up after a failed parse needs it before that.
        XslTransformHandler.getInstance().setTransformerFactory(new net.sf.saxon.TransformerFactoryImpl());
    }

    private OdeCompile() {
    }

    /**
     * Compiles {@code bpel}, a file of the staged package {@code pkg}; ODE writes the compiled
     * process next to it.
     */
    public static Outcome compile(Path pkg, Path bpel, Document doc) {
        Outcome out = new Outcome();
        Set<String> seen = new LinkedHashSet<>();
        BpelC bpelc = BpelC.newBpelCompiler();
        bpelc.setResourceFinder(new PackageResourceFinder(pkg));
        bpelc.setBaseDirectory(pkg.toFile());
        bpelc.setCompileListener(msg -> record(out, seen, pkg, bpel, msg));
        boolean compiled = false;
        OdeLog.start();
        try {
            bpelc.compile(bpel.toFile(), 0);
            compiled = true;
        } catch (CompilationException e) {
            CompilationMessage msg = e.getCompilationMessage();
            if (msg != null) {
                String cause = rootCause(e);
                if (cause != null && (msg.messageText == null || !msg.messageText.contains(cause))) {
                    msg.messageText = (msg.messageText == null ? "" : msg.messageText + ": ") + cause;
                }
                if (msg.severity != CompilationMessage.ERROR) {
                    msg.severity = CompilationMessage.ERROR;
                }
                record(out, seen, pkg, bpel, msg);
            } else {
                out.errors.add(new Problem(rel(pkg, bpel), 0, "ODE compilation failed: " + describe(e)));
            }
        } catch (Exception | LinkageError | StackOverflowError e) {
            out.errors.add(new Problem(rel(pkg, bpel), 0, "ODE's compiler crashed: " + describe(e)));
        } finally {
            List<OdeLog.Entry> logged = OdeLog.stop();
            for (OdeLog.Entry e : logged) {
                classify(out, rel(pkg, bpel), doc, e);
            }
        }
        if (compiled && out.errors.isEmpty()) {
            // BpelC.compile(File, long) writes the .cbp next to the .bpel, i.e. into the staged
            // copy of the package, never into the caller's files.
            String name = bpel.getFileName().toString();
            Path cbp = bpel.resolveSibling(name.substring(0, name.length() - ".bpel".length()) + ".cbp");
            try (InputStream in = Files.newInputStream(cbp)) {
                out.process = new Serializer(in).readOProcess();
            } catch (Exception e) {
                out.errors.add(new Problem(rel(pkg, bpel), 0,
                        "ODE wrote a compiled process (.cbp) that it cannot read back: " + describe(e)));
            }
        }
        return out;
    }

    private static void record(Outcome out, Set<String> seen, Path pkg, Path bpel, CompilationMessage msg) {
        if (msg.severity == CompilationMessage.INFO) {
            return;
        }
        String file = rel(pkg, bpel);
        int line = 0;
        SourceLocation src = msg.source;
        if (src != null) {
            line = src.getLineNo();
            URI uri = src.getURI();
            if (uri != null) {
                file = relUri(pkg, uri, file);
            }
        }
        if ("CompilationErrors".equals(msg.code) && !out.errors.isEmpty()) {
            return; // ODE's summary of the errors it has already reported one by one
        }
        String body = msg.messageText == null ? "(no message)" : msg.messageText;
        // Name files as the package does, not by their staged copies.
        String root = pkg.toAbsolutePath().normalize().toString();
        body = body.replace(pkg.toAbsolutePath().normalize().toUri().toString(), "")
                .replace("file:" + root + "/", "").replace(root + "/", "");
        String text = (msg.code != null && !msg.code.isEmpty() ? "[" + msg.code + "] " : "") + body;
        Problem p = new Problem(file, line, text);
        if (!seen.add(msg.severity + "|" + p)) {
            return;
        }
        if (msg.severity == CompilationMessage.ERROR) {
            out.errors.add(p);
        } else if (isAboutRestLight(msg.messageText)) {
            out.toleratedWarnings.add(p);
        } else {
            out.warnings.add(p);
        }
    }

    private static final String UNRECOGNIZED = "Unrecognized element in BPEL dom: ";

    /**
     * Sorts what ODE logged while compiling. ODE reports some problems only in its log:
     * elements its object model does not know (which it drops) and XPath expressions it could
     * not validate (which it keeps).
     */
    private static void classify(Outcome out, String file, Document doc, OdeLog.Entry e) {
        String msg = e.message() == null ? "" : e.message();
        if (msg.startsWith(UNRECOGNIZED)) {
            String qn = msg.substring(UNRECOGNIZED.length()).strip();
            if (qn.equals("{" + Xml.BPEL + "}extensions") || qn.equals("{" + Xml.BPEL + "}extensionActivity")
                    || qn.startsWith("{" + BPEL4RESTLIGHT + "}")) {
                out.toleratedWarnings.add(new Problem(file, 0, "ODE: " + msg));
            } else {
                out.warnings.add(new Problem(file, firstLine(doc, qn), "ODE's compiler does not know the element "
                        + qn + " and drops it"));
            }
            return;
        }
        if (msg.startsWith(XPathRecheck.LOGGED)) {
            String expr = msg.substring(XPathRecheck.LOGGED.length());
            XPathRecheck.Verdict v = XPathRecheck.check(doc, expr);
            String why = e.thrown() == null ? "" : rootMessage(e.thrown());
            if (v.error() == null) {
                out.notes.add(file + ":" + v.line() + ": ODE could not validate a piece it cut out of the"
                        + " XPath expression " + expr + " (" + why + "); the whole expression compiles");
            } else {
                out.errors.add(new Problem(file, v.line(), "[XPath] ODE cannot compile the XPath 2.0 expression "
                        + expr + ": " + v.error()));
            }
            return;
        }
        String text = "ODE logged: " + msg + (e.thrown() == null ? "" : " (" + rootMessage(e.thrown()) + ")");
        if (e.error()) {
            out.errors.add(new Problem(file, 0, text));
        } else if (isAboutRestLight(msg)) {
            out.toleratedWarnings.add(new Problem(file, 0, text));
        } else {
            out.warnings.add(new Problem(file, 0, text));
        }
    }

    /** The line of the first element named {@code {ns}local}, or 0. */
    private static int firstLine(Document doc, String clark) {
        int close = clark.indexOf('}');
        String ns = clark.startsWith("{") && close > 0 ? clark.substring(1, close) : "";
        String local = close > 0 ? clark.substring(close + 1) : clark;
        var found = doc.getElementsByTagNameNS(ns.isEmpty() ? null : ns, local);
        return found.getLength() == 0 ? 0 : Xml.line(found.item(0));
    }

    private static String rootMessage(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        String m = c.getMessage();
        return (m == null ? c.getClass().getSimpleName() : m).replaceAll("\\s*\\R\\s*", " ").strip();
    }

    static boolean isAboutRestLight(String text) {
        return text != null && (text.contains(BPEL4RESTLIGHT) || text.toLowerCase().contains("bpel4restlight"));
    }

    static String rel(Path pkg, Path file) {
        Path a = file.toAbsolutePath().normalize();
        Path root = pkg.toAbsolutePath().normalize();
        return a.startsWith(root) ? root.relativize(a).toString() : a.toString();
    }

    private static String relUri(Path pkg, URI uri, String fallback) {
        try {
            if ("file".equalsIgnoreCase(uri.getScheme())) {
                return rel(pkg, new File(uri).toPath());
            }
            return uri.toString();
        } catch (IllegalArgumentException e) {
            return fallback;
        }
    }

    static String describe(Throwable e) {
        String m = e.getMessage();
        String s = e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        String cause = rootCause(e);
        if (cause != null && !s.contains(cause)) {
            s += " (caused by " + cause + ")";
        }
        StackTraceElement[] st = e.getStackTrace();
        if (st.length > 0 && (m == null || e instanceof NullPointerException)) {
            s += " at " + st[0];
        }
        return s;
    }

    /** The message of the innermost cause, if it differs from the outermost exception. */
    static String rootCause(Throwable e) {
        Throwable c = e;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        if (c == e) {
            return null;
        }
        String m = c.getMessage();
        return c.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
