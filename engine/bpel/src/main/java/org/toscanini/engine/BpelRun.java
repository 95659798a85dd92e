package org.toscanini.engine;

import groovy.json.JsonOutput;
import groovy.json.JsonSlurper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Runs WS-BPEL plans in Apache ODE 1.3.7's engine against the mock OpenTOSCA container:
 *
 * <pre>
 * engine/run bpel-run PLAN [--build BUILD_PLAN] [--instances N] [--inputs FILE.json]
 *                          [--fail TEMPLATE/INTERFACE/OPERATION] [--expect normal|error]
 *                          [--answer TEMPLATE/OUTPUT=VALUE] [--property TEMPLATE.PROPERTY=V1,V2,...]
 *                          [--state TEMPLATE=STATE] [--trace OUT.jsonl] [--timeout SECONDS]
 * </pre>
 *
 * Prints the result line (JSON) and exits 0 when the plan ended as expected with no problem, 1
 * otherwise, 2 on a usage error. The trace has the form of the Operaton harness's (scopes are
 * the activities), so {@code engine/check-trace.py} checks it the same way.
 */
public final class BpelRun {
    private BpelRun() {
    }

    static final class Options {
        Path plan;
        Path build;
        int instances = 1;
        Map<String, String> inputs = new LinkedHashMap<>();
        Map<String, String> buildInputs = new LinkedHashMap<>();
        String fail;
        String expect;
        Map<String, String> answers = new LinkedHashMap<>();
        Path trace;
        long timeoutMillis = 120_000;
        /** A transformation's target service template below /csars, served beside the plan's own. */
        String target;
        /** Properties of the instances the builds made: TEMPLATE.PROPERTY to one value per instance. */
        Map<String, List<String>> properties = new LinkedHashMap<>();
        /** States the instances of a template get after the builds: TEMPLATE to STATE. */
        Map<String, String> states = new LinkedHashMap<>();
    }

    /** The keys a line of a batch file may have; another one is an error, not ignored. */
    static final java.util.Set<String> BATCH_KEYS = java.util.Set.of("plan", "build", "instances", "inputs",
            "build_inputs", "fail", "expect", "answer", "target", "properties", "states", "trace", "timeout", "name",
            "xfail");

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--batch")) {
            System.exit(batch(Path.of(args[1])));
        }
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bpel-run: " + e.getMessage());
            System.exit(2);
            return;
        }
        Path work = Files.createTempDirectory("toscanini-ode");
        int status;
        try (Mock mock = new Mock(); OdeServer ode = new OdeServer()) {
            Map<String, Object> line = run(o, mock, ode, work);
            System.out.println(JsonOutput.toJson(line));
            String want = o.expect != null ? o.expect : (o.fail != null ? "error" : "normal");
            status = want.equals(line.get("ended")) && ((List<?>) line.get("problems")).isEmpty() ? 0 : 1;
        } finally {
            delete(work);
        }
        System.exit(status);
    }

    /**
     * Many runs in one JVM and one engine: FILE has one JSON object a line, with the options'
     * names (`plan`, `build`, `instances`, `inputs`, `build_inputs`, `fail`, `expect`, `answer`,
     * `target`, `properties` (a list of TEMPLATE.PROPERTY=V1,V2), `states` (TEMPLATE to STATE),
     * `trace`, `timeout`) and a `name`. Prints `ok NAME` or `FAIL NAME: problems` for each, then
     * `N passed, N failed`; 0 if all passed.
     */
    @SuppressWarnings("unchecked")
    static int batch(Path file) throws Exception {
        int passed = 0;
        int failed = 0;
        int xfailed = 0;
        Path work = Files.createTempDirectory("toscanini-ode");
        try (Mock mock = new Mock(); OdeServer ode = new OdeServer()) {
            for (String text : Files.readAllLines(file)) {
                if (text.isBlank()) {
                    continue;
                }
                Map<String, Object> j = (Map<String, Object>) new JsonSlurper().parseText(text);
                List<String> unknown = j.keySet().stream().filter(k -> !BATCH_KEYS.contains(k)).sorted().toList();
                if (!unknown.isEmpty()) {
                    failed++;
                    System.out.println("FAIL " + j.get("name") + ": unknown batch keys " + unknown);
                    continue;
                }
                Options o = new Options();
                o.plan = Path.of((String) j.get("plan"));
                o.build = j.get("build") == null ? null : Path.of((String) j.get("build"));
                o.instances = j.get("instances") == null ? 1 : ((Number) j.get("instances")).intValue();
                o.fail = (String) j.get("fail");
                o.expect = (String) j.get("expect");
                o.trace = j.get("trace") == null ? null : Path.of((String) j.get("trace"));
                copy(j.get("inputs"), o.inputs);
                copy(j.get("build_inputs"), o.buildInputs);
                copy(j.get("states"), o.states);
                o.target = (String) j.get("target");
                if (j.get("properties") instanceof List<?> props) {
                    for (Object p : props) {
                        property(String.valueOf(p), o.properties);
                    }
                }
                if (j.get("answer") instanceof String a) {
                    int eq = a.indexOf('=');
                    o.answers.put(a.substring(0, eq), a.substring(eq + 1));
                }
                if (j.get("timeout") instanceof Number n) {
                    o.timeoutMillis = n.longValue() * 1000;
                }
                Map<String, Object> line = run(o, mock, ode, work);
                String want = o.expect != null ? o.expect : (o.fail != null ? "error" : "normal");
                List<?> problems = (List<?>) line.get("problems");
                boolean ok = want.equals(line.get("ended")) && problems.isEmpty();
                if (j.get("xfail") != null) {
                    // Known to fail (engine/ci.py BPEL_XFAIL): reported, not counted.
                    xfailed++;
                    System.out.println((ok ? "XPASS " : "xfail ") + j.get("name") + ": " + j.get("xfail")
                            + (ok ? "" : " (ended " + line.get("ended") + ": " + problems + ")"));
                } else if (ok) {
                    passed++;
                    System.out.println("ok   " + j.get("name"));
                } else {
                    failed++;
                    System.out.println("FAIL " + j.get("name") + ": ended " + line.get("ended") + ", expected " + want
                            + (problems.isEmpty() ? "" : ": " + problems));
                }
            }
        } finally {
            delete(work);
        }
        System.out.println(passed + " passed, " + failed + " failed"
                + (xfailed == 0 ? "" : ", " + xfailed + " known to fail"));
        return failed == 0 ? 0 : 1;
    }

    /** Removes the staged plans (a directory tree), or says why it could not. */
    private static void delete(Path dir) {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            System.err.println("bpel-run: could not remove " + dir + ": " + e.getMessage());
        }
    }

    /** TEMPLATE.PROPERTY=V1,V2,...: the property's value in each instance, in order. */
    private static void property(String spec, Map<String, List<String>> to) {
        int eq = spec.indexOf('=');
        int dot = spec.indexOf('.');
        if (dot < 1 || eq < dot) {
            throw new IllegalArgumentException("a property is TEMPLATE.PROPERTY=V1,V2,..., not " + spec);
        }
        to.put(spec.substring(0, eq), List.of(spec.substring(eq + 1).split(",", -1)));
    }

    private static void copy(Object from, Map<String, String> to) {
        if (from instanceof Map<?, ?> m) {
            m.forEach((k, v) -> to.put(String.valueOf(k), String.valueOf(v)));
        }
    }

    @SuppressWarnings("unchecked")
    static Options parse(String[] args) throws IOException {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                if (o.plan != null) {
                    throw new IllegalArgumentException("one plan at a time, not also " + a);
                }
                o.plan = Path.of(a);
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--build" -> o.build = Path.of(v);
                case "--instances" -> o.instances = Integer.parseInt(v);
                case "--inputs" -> ((Map<String, Object>) new JsonSlurper().parse(Path.of(v).toFile()))
                        .forEach((k, x) -> o.inputs.put(k, String.valueOf(x)));
                case "--fail" -> o.fail = v;
                case "--expect" -> o.expect = v;
                case "--answer" -> {
                    int eq = v.indexOf('=');
                    if (eq < 1) {
                        throw new IllegalArgumentException("--answer takes TEMPLATE/OUTPUT=VALUE");
                    }
                    o.answers.put(v.substring(0, eq), v.substring(eq + 1));
                }
                case "--trace" -> o.trace = Path.of(v);
                case "--target" -> o.target = v;
                case "--property" -> property(v, o.properties);
                case "--state" -> {
                    int eq = v.indexOf('=');
                    if (eq < 1) {
                        throw new IllegalArgumentException("--state takes TEMPLATE=STATE");
                    }
                    o.states.put(v.substring(0, eq), v.substring(eq + 1));
                }
                case "--timeout" -> o.timeoutMillis = Long.parseLong(v) * 1000;
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (o.plan == null) {
            throw new IllegalArgumentException("usage: bpel-run PLAN [--build BUILD_PLAN] [--instances N] ...");
        }
        return o;
    }

    /** The build runs the plan needs, then the plan; its result line. */
    static Map<String, Object> run(Options o, Mock mock, OdeServer ode, Path work) throws Exception {
        long deadline = System.currentTimeMillis() + o.timeoutMillis;
        Map<String, Object> line = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        line.put("event", "result");
        line.put("problems", problems);
        BpelPlan plan;
        try {
            plan = BpelPlan.load(o.plan, work);
        } catch (IOException | RuntimeException e) {
            line.put("ended", "harness-error");
            problems.add(String.valueOf(e.getMessage()));
            return line;
        }
        Long service = null;
        mock.reset();
        mock.setTarget(o.target);
        if (o.build == null && (o.instances != 1 || !o.properties.isEmpty() || !o.states.isEmpty())) {
            line.put("ended", "harness-error");
            problems.add("--instances, --property and --state need --build (the plan that creates the instances)");
            return line;
        }
        if (o.build != null) {
            BpelPlan build = BpelPlan.load(o.build, work);
            for (int i = 0; i < o.instances; i++) {
                Map<String, Object> setup = once(build, null, Map.of(), o.buildInputs, null, new Trace(), mock, ode,
                        deadline, i + 1);
                if (!"normal".equals(setup.get("ended")) || !((List<?>) setup.get("problems")).isEmpty()) {
                    line.put("ended", "setup-failed");
                    problems.add("the build plan run before it (instance " + (i + 1) + ") ended "
                            + setup.get("ended") + ": " + setup.get("problems"));
                    return line;
                }
            }
            service = mock.merge();
            for (Map.Entry<String, List<String>> p : o.properties.entrySet()) {
                int dot = p.getKey().indexOf('.');
                mock.setProperty(p.getKey().substring(0, dot), p.getKey().substring(dot + 1), p.getValue());
            }
            o.states.forEach(mock::setState);
        }
        Trace trace = new Trace();
        Map<String, Object> result = once(plan, o.fail, o.answers, o.inputs, service, trace, mock, ode, deadline,
                o.instances + 1);
        if (o.trace != null) {
            trace.write(o.trace, result);
        }
        return result;
    }

    private static Map<String, Object> once(BpelPlan plan, String fail, Map<String, String> answers,
            Map<String, String> given, Long service, Trace trace, Mock mock, OdeServer ode, long deadline, int n)
            throws Exception {
        Map<String, Object> line = new LinkedHashMap<>();
        mock.startRun(trace, fail, plan.outputs, answers);
        OdeServer.Run r = new OdeServer.Run(trace, plan.deployments());
        r.busUrl = mock.managementBusUrl();
        plan.deployments().forEach(ode::register);
        try {
            Map<String, String> inputs = mock.planInputs(plan.inputs, given, service, "correlation-" + n);
            ode.start(r, plan.operation, plan.requestMessage, payload(plan, inputs));
            boolean settled = ode.await(r, deadline);
            ode.takeOdeErrors(r);
            line.put("event", "result");
            line.put("ended", r.ended == null ? (settled ? "stuck" : "running") : r.ended);
            List<String> problems = new ArrayList<>(r.problems);
            if (ode.failure() != null) {
                problems.add("ODE: " + OdeServer.describe(ode.failure()));
            }
            List<String> rejected = new ArrayList<>();
            for (Map<String, Object> e : trace.events()) {
                if ("rejected".equals(e.get("kind"))) {
                    rejected.add(e.get("method") + " " + e.get("path") + ": " + e.get("why"));
                }
            }
            line.put("incidents", problems);
            line.put("unrouted_callbacks", ode.dropped());
            line.put("jobs_left", ode.pending());
            line.put("rejected", rejected);
            line.put("instances", mock.snapshot());
            line.put("plan_states", mock.planStates());
            if (r.output != null) {
                line.put("output", r.output);
            }
            List<String> all = new ArrayList<>(problems);
            if (fail == null && "normal".equals(line.get("ended")) && ode.dropped() > 0) {
                // Only a failure ends scopes while their calls run: otherwise a receive is missing.
                all.add(ode.dropped() + " bus callback(s) found no receive waiting");
            }
            if (!rejected.isEmpty()) {
                all.add("the mock container rejected: " + rejected);
            }
            if (!settled) {
                all.add("the plan did not settle before the time limit");
            }
            line.put("problems", all);
            return line;
        } finally {
            plan.deployments().forEach(ode::unregister);
        }
    }

    /** The plan's request element, one child per input, in the plan's namespace. */
    private static Element payload(BpelPlan plan, Map<String, String> inputs) throws Exception {
        Document doc = XmlText.newDocument();
        String ns = plan.requestElement.getNamespaceURI();
        Element root = doc.createElementNS(ns, "tns:" + plan.requestElement.getLocalPart());
        doc.appendChild(root);
        for (String name : plan.inputs) {
            Element e = doc.createElementNS(ns, "tns:" + name);
            e.setTextContent(inputs.getOrDefault(name, ""));
            root.appendChild(e);
        }
        return root;
    }
}
