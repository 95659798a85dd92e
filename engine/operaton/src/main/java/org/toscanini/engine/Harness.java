package org.toscanini.engine;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hc.core5.http.HttpRequest;
import org.operaton.bpm.engine.ProcessEngine;
import org.operaton.bpm.engine.ProcessEngineConfiguration;
import org.operaton.bpm.engine.delegate.ExecutionListener;
import org.operaton.bpm.engine.history.HistoricActivityInstance;
import org.operaton.bpm.engine.history.HistoricProcessInstance;
import org.operaton.bpm.engine.impl.bpmn.parser.BpmnParseListener;
import org.operaton.bpm.engine.impl.cfg.ProcessEngineConfigurationImpl;
import org.operaton.bpm.engine.impl.context.BpmnExecutionContext;
import org.operaton.bpm.engine.impl.context.Context;
import org.operaton.bpm.engine.impl.persistence.entity.ExecutionEntity;
import org.operaton.bpm.engine.impl.pvm.process.ActivityImpl;
import org.operaton.bpm.engine.impl.pvm.process.ScopeImpl;
import org.operaton.bpm.engine.impl.util.xml.Element;
import org.operaton.bpm.engine.repository.Deployment;
import org.operaton.bpm.engine.repository.DeploymentBuilder;
import org.operaton.bpm.engine.repository.ProcessDefinition;
import org.operaton.bpm.engine.runtime.Incident;
import org.operaton.bpm.engine.runtime.Job;
import org.operaton.bpm.engine.runtime.ProcessInstance;
import org.operaton.connect.Connectors;
import org.operaton.connect.plugin.impl.ConnectProcessEnginePlugin;

/**
 * One embedded Operaton engine (in-memory H2, the Connect plugin with its HTTP connector,
 * Groovy through JSR-223) and one mock container, for every plan of a JVM's life. The job
 * executor is off: the harness executes the jobs itself, timers included (a poll loop's
 * wait is not waited out), one at a time, so a run is fast and its trace is one total order.
 */
final class Harness implements AutoCloseable {
  /** How one plan is run. */
  static final class Options {
    String fail;
    int instances = 1;
    Plan build;
    Map<String, String> inputs = new LinkedHashMap<>();
    /** Inputs of the build runs before the plan (a batch's `build_inputs`). */
    Map<String, String> buildInputs = new LinkedHashMap<>();
    Map<String, List<String>> properties = new LinkedHashMap<>();
    Map<String, String> states = new LinkedHashMap<>();
    /** Output values the bus answers, by TEMPLATE/OUTPUT (others are OUTPUT-of-TEMPLATE). */
    Map<String, String> answers = new LinkedHashMap<>();
    /** normal or error; by default error exactly when a failure is injected. */
    String expect;
    /** A transformation's target service template below /csars, served beside the plan's own. */
    String target;
    long timeoutMillis = 120_000;
  }

  /** How a run ended. */
  static final class Result {
    final Map<String, Object> line = new LinkedHashMap<>();
    final List<String> problems = new ArrayList<>();

    String ended() {
      return (String) line.get("ended");
    }
  }

  private static volatile Trace current;
  /** The variables the plan's output task left in the current run (null: it did not run). */
  private static volatile Map<String, Object> lastOutputs;
  private final ProcessEngine engine;
  final Mock mock;
  private int runs;
  private final Map<String, Deployment> deployments = new LinkedHashMap<>();

  Harness() throws IOException {
    mock = new Mock();
    ProcessEngineConfigurationImpl cfg = (ProcessEngineConfigurationImpl)
        ProcessEngineConfiguration.createStandaloneInMemProcessEngineConfiguration();
    cfg.setJdbcUrl("jdbc:h2:mem:toscanini-harness;DB_CLOSE_DELAY=-1");
    cfg.setJobExecutorActivate(false);
    // Activity history tells how the process ended; variable history is not needed.
    cfg.setHistory(ProcessEngineConfiguration.HISTORY_ACTIVITY);
    cfg.setProcessEnginePlugins(new ArrayList<>(List.of(new ConnectProcessEnginePlugin())));
    cfg.setCustomPreBPMNParseListeners(new ArrayList<>(List.of(new ActivityEvents())));
    engine = cfg.buildProcessEngine();
    Connectors.getConnector("http-connector").addRequestInterceptor(invocation -> {
      if (invocation.getTarget() instanceof HttpRequest request) {
        String chain = activityChain();
        if (!chain.isEmpty()) {
          request.addHeader(Mock.ACTIVITY_HEADER, chain);
        }
      }
      return invocation.proceed();
    });
  }

  /**
   * The ids of the activities around the one executing now, innermost first; inside a called
   * process, followed by those around the call activity that called it.
   */
  private static String activityChain() {
    BpmnExecutionContext ctx = Context.getBpmnExecutionContext();
    if (ctx == null || ctx.getExecution() == null || ctx.getExecution().getActivity() == null) {
      return "";
    }
    List<String> ids = new ArrayList<>();
    ExecutionEntity x = ctx.getExecution();
    while (x != null) {
      ScopeImpl s = x.getActivity();
      while (s instanceof ActivityImpl a) {
        ids.add(a.getId());
        s = a.getFlowScope();
      }
      x = x.getProcessInstance().getSuperExecution();
    }
    return String.join(" ", ids);
  }

  /**
   * Records the start and end of every subprocess, call activity and task without a type (an
   * activity of a plan that has no steps) in the trace, and of every end event named "skipped":
   * the way out of an activity whose gateway skips its steps (it was entered, but did not run).
   */
  private static final class ActivityEvents implements BpmnParseListener {
    @Override
    public void parseSubProcess(Element e, ScopeImpl scope, ActivityImpl activity) {
      listen(activity);
    }

    @Override
    public void parseCallActivity(Element e, ScopeImpl scope, ActivityImpl activity) {
      listen(activity);
    }

    @Override
    public void parseTask(Element e, ScopeImpl scope, ActivityImpl activity) {
      listen(activity);
    }

    @Override
    public void parseEndEvent(Element e, ScopeImpl scope, ActivityImpl activity) {
      if ("skipped".equals(e.attribute("name"))) {
        listen(activity);
      }
    }

    /** The plan's output task: the variables it leaves are the plan's outputs. */
    @Override
    public void parseScriptTask(Element e, ScopeImpl scope, ActivityImpl activity) {
      if ("plan_outputs".equals(activity.getId())) {
        activity.addListener(ExecutionListener.EVENTNAME_END, (ExecutionListener) execution ->
            lastOutputs = new java.util.HashMap<>(execution.getVariables()));
      }
    }

    private static void listen(ActivityImpl activity) {
      String id = activity.getId();
      for (String event : List.of(ExecutionListener.EVENTNAME_START, ExecutionListener.EVENTNAME_END)) {
        activity.addListener(event, (ExecutionListener) execution -> {
          Trace t = current;
          if (t != null) {
            Map<String, Object> e = t.open("activity");
            e.put("activity", id);
            e.put("event", event);
          }
        });
      }
    }
  }

  /** Runs `plan` against the mock; its trace is `trace`. */
  Result run(Plan plan, Options o, Trace trace) {
    Result r = new Result();
    long deadline = System.currentTimeMillis() + o.timeoutMillis;
    try {
      Long service = null;
      mock.reset();
      mock.setTarget(o.target);
      if (o.build != null) {
        for (int i = 0; i < o.instances; i++) {
          Result setup = once(o.build, null, Map.of(), new LinkedHashMap<>(o.buildInputs), new Trace(), deadline, null);
          if (!"normal".equals(setup.ended())) {
            r.line.put("event", "result");
            r.line.put("ended", "setup-failed");
            r.problems.add("the build plan run before it (instance " + (i + 1) + ") ended " + setup.ended() + ": " + setup.problems);
            return r;
          }
        }
        service = mock.merge();
        for (Map.Entry<String, List<String>> p : o.properties.entrySet()) {
          int dot = p.getKey().indexOf('.');
          mock.setProperty(p.getKey().substring(0, dot), p.getKey().substring(dot + 1), p.getValue());
        }
        o.states.forEach(mock::setState);
      } else if (!o.properties.isEmpty() || !o.states.isEmpty() || o.instances != 1) {
        throw new IllegalArgumentException("--instances, --property and --state need --build (the plan that creates the instances)");
      }
      return once(plan, o.fail, o.answers, o.inputs, trace, deadline, service);
    } catch (RuntimeException | IOException ex) {
      r.line.put("event", "result");
      r.line.put("ended", "harness-error");
      r.problems.add(String.valueOf(ex.getMessage()));
      return r;
    }
  }

  private Result once(Plan plan, String fail, Map<String, String> answers, Map<String, String> given, Trace trace,
      long deadline, Long service) throws IOException {
    Result r = new Result();
    current = trace;
    lastOutputs = null;
    mock.startRun(trace, fail, plan.operationOutputs(), answers);
    runs++;
    long t0 = System.nanoTime();
    Deployment deployment = deploy(plan);
    r.line.put("deploy_millis", (System.nanoTime() - t0) / 1_000_000);
    String processInstance = null;
    try {
      String key = processId(plan);
      ProcessDefinition def = engine.getRepositoryService().createProcessDefinitionQuery()
          .deploymentId(deployment.getId()).processDefinitionKey(key).singleResult();
      if (def == null) {
        throw new IOException(plan.name + ": no process " + key + " in the deployment");
      }
      Map<String, Object> vars = inputs(plan, given, service);
      ProcessInstance pi = engine.getRuntimeService().startProcessInstanceById(def.getId(), vars);
      processInstance = pi.getId();
      drive(pi.getId(), deadline, r);
      finish(pi.getId(), plan, r, trace);
      return r;
    } finally {
      current = null;
      if (processInstance != null) {
        engine.getHistoryService().deleteHistoricProcessInstancesIfExists(List.of(processInstance));
      }
    }
  }

  /**
   * The plan's deployment: made once and kept for the next runs of the same plan (a build
   * plan runs again before each termination and scale-out plan, and the Groovy scripts
   * of a deployment are compiled once); the oldest goes when more than a few are kept.
   */
  private Deployment deploy(Plan plan) {
    String key = plan.digest();
    Deployment kept = deployments.remove(key);
    if (kept == null) {
      DeploymentBuilder d = engine.getRepositoryService().createDeployment().name(plan.name);
      for (Map.Entry<String, byte[]> f : plan.resources.entrySet()) {
        d.addInputStream(f.getKey(), new ByteArrayInputStream(f.getValue()));
      }
      kept = d.deploy();
    }
    deployments.put(key, kept);
    while (deployments.size() > 6) {
      String oldest = deployments.keySet().iterator().next();
      engine.getRepositoryService().deleteDeployment(deployments.remove(oldest).getId(), true, true);
    }
    return kept;
  }

  private static String processId(Plan plan) throws IOException {
    Matcher m = Pattern.compile("<(?:bpmn:)?process id=\"([^\"]+)\"").matcher(plan.mainText());
    if (!m.find()) {
      throw new IOException(plan.name + ": no process element");
    }
    return m.group(1);
  }

  private Map<String, Object> inputs(Plan plan, Map<String, String> given, Long service) {
    return new LinkedHashMap<>(mock.planInputs(plan.inputs(), given, service, "correlation-" + runs));
  }

  /**
   * The plan's outputs as the run left them: the variables its output task sets, as they were
   * when it ended (engine/ci.py compares them with the BPEL twin's answer); none where the
   * task did not run. Variable history is off, so a parse listener keeps them.
   */
  private static Map<String, Object> outputs(Plan plan) {
    Map<String, Object> out = new java.util.TreeMap<>();
    Map<String, Object> left = lastOutputs;
    if (left != null) {
      for (String name : plan.outputs()) {
        Object v = left.get(name);
        out.put(name, v == null ? "" : String.valueOf(v));
      }
    }
    return out;
  }

  /** Executes jobs (timers at once) until the process ends, is stuck, or time is up. */
  private void drive(String processInstanceId, long deadline, Result r) {
    var runtime = engine.getRuntimeService();
    var management = engine.getManagementService();
    while (true) {
      if (runtime.createProcessInstanceQuery().processInstanceId(processInstanceId).count() == 0) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        r.problems.add("time limit reached with the process still running");
        return;
      }
      List<Job> jobs = new ArrayList<>(management.createJobQuery().withRetriesLeft().list());
      if (jobs.isEmpty()) {
        return;
      }
      jobs.sort(Comparator.comparing((Job j) -> j.getDuedate() == null ? 0L : j.getDuedate().getTime())
          .thenComparing(Job::getId));
      Job job = jobs.get(0);
      try {
        management.executeJob(job.getId());
      } catch (RuntimeException ex) {
        // No retries: a retried HTTP call would repeat an operation. An incident instead.
        management.setJobRetries(job.getId(), 0);
        r.problems.add("job failed: " + rootMessage(ex));
      }
    }
  }

  /**
   * Whether the process ended in an error end event: the activity that ended it, or, where an
   * event subprocess ended it, the end event of that subprocess.
   */
  static boolean endedInError(List<HistoricActivityInstance> activities, String endActivityId) {
    Set<String> enders = new HashSet<>();
    for (HistoricActivityInstance a : activities) {
      if (a.getActivityId().equals(endActivityId)) {
        if ("errorEndEvent".equals(a.getActivityType())) {
          return true;
        }
        enders.add(a.getId());
      }
    }
    return activities.stream().anyMatch(a -> "errorEndEvent".equals(a.getActivityType())
        && enders.contains(a.getParentActivityInstanceId()));
  }

  private void finish(String processInstanceId, Plan plan, Result r, Trace trace) {
    var history = engine.getHistoryService();
    HistoricProcessInstance hpi = history.createHistoricProcessInstanceQuery()
        .processInstanceId(processInstanceId).singleResult();
    String ended;
    if (hpi.getEndTime() == null) {
      ended = "running";
    } else {
      ended = endedInError(history.createHistoricActivityInstanceQuery()
          .processInstanceId(processInstanceId).list(), hpi.getEndActivityId()) ? "error" : "normal";
    }
    List<String> incidents = new ArrayList<>();
    for (Incident i : engine.getRuntimeService().createIncidentQuery().list()) {
      incidents.add(i.getActivityId() + ": " + i.getIncidentMessage());
    }
    long jobs = engine.getManagementService().createJobQuery().count();
    if (!"normal".equals(ended) && !"error".equals(ended)) {
      engine.getRuntimeService().deleteProcessInstance(processInstanceId, "harness: run over", true, true);
    }
    List<String> rejected = new ArrayList<>();
    for (Map<String, Object> e : trace.events()) {
      if ("rejected".equals(e.get("kind"))) {
        rejected.add(e.get("method") + " " + e.get("path") + ": " + e.get("why"));
      }
    }
    Runtime rt = Runtime.getRuntime();
    r.line.put("heap_mib", (rt.totalMemory() - rt.freeMemory()) >> 20);
    r.line.put("event", "result");
    r.line.put("ended", ended);
    r.line.put("incidents", incidents);
    r.line.put("jobs_left", jobs);
    r.line.put("rejected", rejected);
    r.line.put("instances", mock.snapshot());
    r.line.put("plan_states", mock.planStates());
    r.line.put("outputs", outputs(plan));
    if (!incidents.isEmpty()) {
      r.problems.add("incidents: " + incidents);
    }
    if (jobs > 0) {
      r.problems.add(jobs + " job(s) left");
    }
    if (!rejected.isEmpty()) {
      r.problems.add("the mock container rejected: " + rejected);
    }
  }

  private static String rootMessage(Throwable t) {
    String m = t.getMessage();
    while (t.getCause() != null) {
      t = t.getCause();
      if (t.getMessage() != null) {
        m = t.getMessage();
      }
    }
    return m;
  }

  @Override
  public void close() {
    engine.close();
    mock.close();
  }
}
