package org.toscanini.engine;

import groovy.json.JsonSlurper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `run bpmn PLAN [options]` runs one plan; `run batch FILE` runs every plan a JSON-lines file
 * lists, in one JVM. Each run writes its trace and prints `ok   NAME` or `FAIL NAME: why`; the
 * batch ends with `N passed, N failed`. Exit 0 when every run ended as expected (normally, or
 * in its error end event when a failure was injected), 1 otherwise, 2 on a usage error.
 */
public final class Main {
  private static final String USAGE = """
      usage: run bpmn PLAN [--inputs FILE.json] [--fail TEMPLATE/INTERFACE/OPERATION]
                           [--build BUILD_PLAN] [--instances N] [--property TEMPLATE.NAME=V1,V2,...]
                           [--state TEMPLATE=STATE] [--expect normal|error]
                           [--answer TEMPLATE/OUTPUT=VALUE] [--target /CSAR/servicetemplates/QNAME]
                           [--trace OUT.jsonl] [--timeout SECONDS]
             run batch FILE.jsonl     (one JSON object a line: plan, name, trace, inputs, fail,
                                       build, instances, properties, states, expect, answer, timeout)
      PLAN: a plan archive (.zip), an exported plan directory, or a .bpmn file""";

  private Main() {}

  /** One run: what to run, how, and where its trace goes. */
  private record Job(String name, Path plan, Harness.Options options, Path trace) {}

  public static void main(String[] args) {
    int code;
    try {
      code = run(args, System.out);
    } catch (UsageError e) {
      System.err.println("run: " + e.getMessage());
      System.err.println(USAGE);
      code = 2;
    }
    System.exit(code);
  }

  static final class UsageError extends RuntimeException {
    UsageError(String m) {
      super(m);
    }
  }

  static int run(String[] args, PrintStream out) {
    if (args.length < 2) {
      throw new UsageError("a mode (bpmn or batch) and a file are needed");
    }
    List<Job> jobs = new ArrayList<>();
    switch (args[0]) {
      case "bpmn" -> jobs.add(fromArgs(args));
      case "batch" -> jobs.addAll(fromBatch(Path.of(args[1])));
      default -> throw new UsageError("unknown mode `" + args[0] + "`");
    }
    watchdog(jobs);
    int passed = 0;
    int failed = 0;
    try (Harness h = new Harness()) {
      for (Job job : jobs) {
        if (runOne(h, job, out)) {
          passed++;
        } else {
          failed++;
        }
      }
    } catch (IOException e) {
      out.println("FAIL harness: " + e.getMessage());
      return 1;
    }
    if (jobs.size() > 1) {
      out.println(passed + " passed, " + failed + " failed");
    }
    return failed == 0 ? 0 : 1;
  }

  private static boolean runOne(Harness h, Job job, PrintStream out) {
    Plan plan;
    try {
      plan = Plan.load(job.plan());
    } catch (IOException e) {
      out.println("FAIL " + job.name() + ": " + e.getMessage());
      return false;
    }
    Trace trace = new Trace();
    long t0 = System.nanoTime();
    Harness.Result r = h.run(plan, job.options(), trace);
    String expected = job.options().expect != null ? job.options().expect
        : job.options().fail == null ? "normal" : "error";
    if (!expected.equals(r.ended())) {
      r.problems.add(0, "ended " + r.ended() + ", expected " + expected);
    }
    r.line.put("millis", (System.nanoTime() - t0) / 1_000_000);
    if (job.trace() != null) {
      try {
        trace.write(job.trace(), r.line);
      } catch (IOException e) {
        r.problems.add("cannot write the trace: " + e.getMessage());
      }
    }
    if (r.problems.isEmpty()) {
      out.println("ok   " + job.name());
      return true;
    }
    out.println("FAIL " + job.name() + ": " + String.join("; ", r.problems));
    return false;
  }

  /** A run never hangs: past every run's time limit and a minute more, the JVM ends. */
  private static void watchdog(List<Job> jobs) {
    long total = 60_000;
    for (Job j : jobs) {
      total += j.options().timeoutMillis * (1 + j.options().instances);
    }
    long limit = total;
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(limit);
        System.out.println("FAIL harness: time limit of " + limit / 1000 + " s reached");
        Runtime.getRuntime().halt(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    t.setDaemon(true);
    t.start();
  }

  private static Job fromArgs(String[] args) {
    Path plan = Path.of(args[1]);
    Harness.Options o = new Harness.Options();
    Path trace = null;
    for (int i = 2; i < args.length; i++) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new UsageError(flag + " needs a value");
      }
      String v = args[++i];
      switch (flag) {
        case "--inputs" -> o.inputs.putAll(readInputs(Path.of(v)));
        case "--trace" -> trace = Path.of(v);
        default -> {
          if (!flag.startsWith("--")) {
            throw new UsageError("unknown option " + flag);
          }
          apply(o, flag.substring(2), v);
        }
      }
    }
    return new Job(plan.getFileName().toString(), plan, o, trace);
  }

  @SuppressWarnings("unchecked")
  private static List<Job> fromBatch(Path file) {
    List<Job> jobs = new ArrayList<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UsageError("cannot read " + file + ": " + e.getMessage());
    }
    int n = 0;
    for (String line : lines) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      Map<String, Object> m;
      try {
        m = (Map<String, Object>) new JsonSlurper().parseText(line);
      } catch (RuntimeException e) {
        throw new UsageError(file + ":" + n + ": not a JSON object");
      }
      if (m.get("plan") == null) {
        throw new UsageError(file + ":" + n + ": no plan");
      }
      Harness.Options o = new Harness.Options();
      int at = n;
      m.forEach((key, value) -> {
        if ((key.equals("inputs") || key.equals("states")) && !(value instanceof Map)
            || key.equals("properties") && !(value instanceof List)) {
          throw new UsageError(file + ":" + at + ": `" + key + "` has the wrong shape");
        }
        switch (key) {
          case "plan", "name", "trace" -> { }
          case "inputs" -> ((Map<?, ?>) value).forEach((k, v) -> o.inputs.put(k.toString(), v.toString()));
          case "build_inputs" -> ((Map<?, ?>) value).forEach((k, v) -> o.buildInputs.put(k.toString(), v.toString()));
          case "properties" -> ((List<?>) value).forEach(v -> apply(o, "property", v.toString()));
          case "states" -> ((Map<?, ?>) value).forEach((k, v) -> apply(o, "state", k + "=" + v));
          default -> {
            if (value != null) {
              apply(o, key, value.toString());
            }
          }
        }
      });
      Path plan = Path.of(m.get("plan").toString());
      String name = m.getOrDefault("name", plan.getFileName().toString()).toString();
      Path trace = m.get("trace") == null ? null : Path.of(m.get("trace").toString());
      jobs.add(new Job(name, plan, o, trace));
    }
    return jobs;
  }

  /** Sets one option of a run, named as on the command line without its dashes. */
  private static void apply(Harness.Options o, String name, String v) {
    switch (name) {
      case "fail" -> o.fail = failTarget(v);
      case "build" -> o.build = loadPlan(Path.of(v));
      case "instances" -> o.instances = positive(name, v);
      case "property" -> addProperty(o, v);
      case "state" -> addState(o, v);
      case "expect" -> o.expect = expect(v);
      case "answer" -> addAnswer(o, v);
      case "timeout" -> o.timeoutMillis = positive(name, v) * 1000L;
      case "target" -> o.target = v;
      default -> throw new UsageError("unknown option " + name);
    }
  }

  /** `TEMPLATE/OUTPUT=VALUE`: the bus answers VALUE for that output of operations on TEMPLATE. */
  private static void addAnswer(Harness.Options o, String v) {
    int slash = v.indexOf('/');
    int eq = v.indexOf('=');
    if (slash <= 0 || eq <= slash + 1) {
      throw new UsageError("--answer takes TEMPLATE/OUTPUT=VALUE, not `" + v + "`");
    }
    o.answers.put(v.substring(0, eq), v.substring(eq + 1));
  }

  private static Plan loadPlan(Path p) {
    try {
      return Plan.load(p);
    } catch (IOException e) {
      throw new UsageError(e.getMessage());
    }
  }

  private static String failTarget(String v) {
    // The interface may be a URI with slashes of its own: the template ends at the first
    // slash, the operation starts after the last.
    int first = v.indexOf('/');
    int last = v.lastIndexOf('/');
    if (first <= 0 || last <= first + 1 || last == v.length() - 1) {
      throw new UsageError("--fail takes TEMPLATE/INTERFACE/OPERATION, not `" + v + "`");
    }
    return v;
  }

  private static int positive(String flag, String v) {
    try {
      int n = Integer.parseInt(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageError(flag + " takes a positive number, not `" + v + "`");
  }

  private static String expect(String v) {
    if (!v.equals("normal") && !v.equals("error")) {
      throw new UsageError("--expect takes normal or error, not `" + v + "`");
    }
    return v;
  }

  private static void addState(Harness.Options o, String v) {
    int eq = v.indexOf('=');
    if (eq <= 0) {
      throw new UsageError("--state takes TEMPLATE=STATE, not `" + v + "`");
    }
    o.states.put(v.substring(0, eq), v.substring(eq + 1));
  }

  private static void addProperty(Harness.Options o, String v) {
    int eq = v.indexOf('=');
    int dot = v.indexOf('.');
    if (eq < 0 || dot < 0 || dot > eq) {
      throw new UsageError("--property takes TEMPLATE.NAME=V1,V2,..., not `" + v + "`");
    }
    o.properties.put(v.substring(0, eq), List.of(v.substring(eq + 1).split(",", -1)));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> readInputs(Path p) {
    try {
      Object v = new JsonSlurper().parseText(Files.readString(p, StandardCharsets.UTF_8));
      if (!(v instanceof Map)) {
        throw new UsageError(p + ": the inputs are a JSON object of names and values");
      }
      Map<String, String> m = new LinkedHashMap<>();
      ((Map<String, Object>) v).forEach((k, x) -> m.put(k, String.valueOf(x)));
      return m;
    } catch (IOException | RuntimeException e) {
      if (e instanceof UsageError u) {
        throw u;
      }
      throw new UsageError("cannot read inputs " + p + ": " + e.getMessage());
    }
  }
}
