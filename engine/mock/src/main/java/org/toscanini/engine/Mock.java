package org.toscanini.engine;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import groovy.json.JsonOutput;
import groovy.json.JsonSlurper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for the OpenTOSCA container on loopback: its instance-data API (service, node,
 * relationship and plan instances with their states, properties and logs) and its management
 * bus invoker (POST an invocation: 202 with a Location; polls answer PENDING, then the
 * operation's result). Answers follow the container's REST API (notes/anchor-opentosca.md §4);
 * a request the container would not accept is answered 404 or 400 and recorded as `rejected`,
 * which fails the run. Every request is recorded in the trace with the BPMN activities that
 * sent it (the X-Toscanini-Activity header the engine harness adds).
 */
final class Mock implements AutoCloseable {
  static final String CSAR = "plan.csar";
  static final String ST = "servicetemplate";
  static final String ACTIVITY_HEADER = "X-Toscanini-Activity";

  /** One node, relationship or service instance. */
  static final class Instance {
    final long id;
    final String template; // "" for a service instance
    final boolean relationship;
    String state;
    long service;
    long source;
    long target;
    final Map<String, String> properties = new TreeMap<>();
    /** Whose service template: "" the plan's own, "target" a transformation's target. */
    String side = "";
    /** Another deployment's node (what a `select` template uses): never merged into the plan's service. */
    boolean external;

    Instance(long id, String template, boolean relationship, String state) {
      this.id = id;
      this.template = template;
      this.relationship = relationship;
      this.state = state;
    }
  }

  /** One management-bus invocation. */
  static final class Invocation {
    Map<String, Object> event;
    boolean fault;
    int polls;
  }

  private final HttpServer server;
  private final String base;
  private Trace trace = new Trace();
  private final Map<Long, Instance> services = new LinkedHashMap<>();
  private final Map<Long, Instance> nodes = new LinkedHashMap<>();
  private final Map<Long, Instance> relationships = new LinkedHashMap<>();
  private final Map<Long, Invocation> invocations = new LinkedHashMap<>();
  private final Map<String, List<String>> planStates = new LinkedHashMap<>();
  private long nextId = 1;
  private String fail = "";
  private int pendingPolls = 1;
  private List<String> outputs = List.of();
  private Map<String, String> answers = Map.of();
  /** A transformation's target service template, below /csars (`/B.csar/servicetemplates/<QName>`), or null. */
  private String targetPath;

  Mock() throws IOException {
    // Without TCP_NODELAY every answer waits out the client's delayed ACK (40 ms a request).
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/", this::handle);
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  String base() {
    return base;
  }

  String instanceDataApiUrl() {
    return base + "/csars/" + CSAR + "/servicetemplates/" + ST + "/instances";
  }

  String csarEntrypoint() {
    return base + "/csars/" + CSAR;
  }

  String managementBusUrl() {
    return base + "/ManagementBus/v1/invoker";
  }

  String serviceInstanceUrl(long id) {
    return instanceDataApiUrl() + "/" + id;
  }

  /** A fresh trace for the next run; instances are kept (a build's are a termination's). */
  synchronized void startRun(Trace trace, String fail, List<String> outputs, Map<String, String> answers) {
    this.trace = trace;
    this.fail = fail == null ? "" : fail;
    this.outputs = outputs;
    this.answers = answers;
    invocations.clear();
    planStates.clear();
  }

  /**
   * Serves a second CSAR's service template (a transformation's target) at `path` below /csars:
   * `/<csar>/servicetemplates/<QName percent-encoded twice>`; null serves the plan's own only.
   */
  synchronized void setTarget(String path) {
    if (path != null && !path.matches("^/[^/]+/servicetemplates/[^/]+$")) {
      throw new IllegalArgumentException("--target takes /CSAR/servicetemplates/QNAME, not `" + path + "`");
    }
    targetPath = path;
  }

  private String targetCsar() {
    return decode(targetPath.split("/")[1]);
  }

  private String targetQName() {
    return decode(decode(targetPath.split("/")[3]));
  }

  /** The instance-API URL of a side's service template. */
  private String serviceTemplateUrl(String side) {
    return side.isEmpty() ? base + "/csars/" + CSAR + "/servicetemplates/" + ST : base + "/csars" + targetPath;
  }

  /** Forgets every instance: the next plan starts from an empty container. */
  synchronized void reset() {
    services.clear();
    nodes.clear();
    relationships.clear();
    nextId = 1;
  }

  /** Puts every node and relationship instance into service instance `into` (N builds, one service). */
  synchronized long merge() {
    long into = services.values().stream().filter(s -> !s.external).map(s -> s.id).findFirst()
        .orElseGet(() -> createService().id);
    for (Instance i : nodes.values()) {
      if (!i.external) {
        i.service = into;
      }
    }
    for (Instance i : relationships.values()) {
      i.service = into;
    }
    Set<Long> kept = new HashSet<>(List.of(into));
    nodes.values().stream().filter(i -> i.external).forEach(i -> kept.add(i.service));
    services.keySet().removeIf(id -> !kept.contains(id));
    services.get(into).state = "CREATED";
    return into;
  }

  /**
   * A started instance of node template `template` in a service instance of its own, with
   * `properties`: another deployment's node, which a `select` template's plan input names. Its URL.
   */
  synchronized String existing(String template, Map<String, String> properties) {
    Instance s = createService();
    s.state = "CREATED";
    s.external = true;
    Instance i = new Instance(nextId++, template, false, "STARTED");
    i.service = s.id;
    i.external = true;
    i.properties.putAll(properties);
    nodes.put(i.id, i);
    return serviceTemplateUrl("") + "/nodetemplates/" + template + "/instances/" + i.id;
  }

  /**
   * The values of a plan's inputs `names` in this container: the container's own (the
   * CorrelationID `correlation`, the instance API, the CSAR, the bus, the service instance:
   * `service` or, if null, the merged one), `given` ones, `input-NAME` for the rest;
   * `@instance:TEMPLATE:K` is the id of the K-th instance of TEMPLATE, and
   * `@existing:TEMPLATE[:NAME=VALUE;...]` (the default of a `<node>_InstanceURL`) the URL of a
   * started instance of TEMPLATE that another deployment made, with those properties.
   */
  synchronized Map<String, String> planInputs(List<String> names, Map<String, String> given, Long service,
      String correlation) {
    Map<String, String> vars = new LinkedHashMap<>();
    for (String name : names) {
      String value = switch (name) {
        case "CorrelationID" -> correlation;
        case "instanceDataAPIUrl" -> instanceDataApiUrl();
        case "csarEntrypoint" -> csarEntrypoint();
        case "ManagementBusURL", "ManagementBusInvokerURL" -> managementBusUrl();
        case "OpenTOSCAContainerAPIServiceInstanceURL" -> serviceInstanceUrl(service == null ? merge() : service);
        default -> name.endsWith("_InstanceURL")
            ? "@existing:" + name.substring(0, name.length() - "_InstanceURL".length())
            : "input-" + name;
      };
      vars.put(name, given.getOrDefault(name, value));
    }
    for (Map.Entry<String, String> g : given.entrySet()) {
      vars.putIfAbsent(g.getKey(), g.getValue());
    }
    for (Map.Entry<String, String> v : vars.entrySet()) {
      v.setValue(resolve(v.getKey(), v.getValue()));
    }
    return vars;
  }

  private String resolve(String name, String s) {
    if (s.startsWith("@existing:")) {
      String[] p = s.substring("@existing:".length()).split(":", 2);
      Map<String, String> properties = new LinkedHashMap<>();
      for (String pair : p.length > 1 ? p[1].split(";") : new String[0]) {
        int eq = pair.indexOf('=');
        if (eq < 1) {
          throw new IllegalArgumentException(name + ": `" + pair + "` is not NAME=VALUE");
        }
        properties.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
      return existing(p[0], properties);
    }
    if (s.startsWith("@instance:")) {
      String[] p = s.split(":");
      List<Long> ids = instanceIds(p[1]);
      int k = Integer.parseInt(p[2]);
      if (k < 1 || k > ids.size()) {
        throw new IllegalArgumentException(name + ": " + p[1] + " has " + ids.size() + " instance(s), not " + k);
      }
      return String.valueOf(ids.get(k - 1));
    }
    return s;
  }

  /** Sets property `name` of the instances of `template`, in creation order, to `values`. */
  synchronized void setProperty(String template, String name, List<String> values) {
    int k = 0;
    for (Instance i : nodes.values()) {
      if (i.template.equals(template) && k < values.size()) {
        i.properties.put(name, values.get(k++));
      }
    }
    if (k == 0) {
      throw new IllegalArgumentException("--property: no instance of template `" + template + "`");
    }
  }

  /** Sets the state of every instance of `template`. */
  synchronized void setState(String template, String state) {
    List<Long> ids = instanceIds(template);
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("--state: no instance of template `" + template + "`");
    }
    ids.forEach(id -> nodes.get(id).state = state);
  }

  synchronized List<Long> instanceIds(String template) {
    List<Long> ids = new ArrayList<>();
    for (Instance i : nodes.values()) {
      if (i.template.equals(template)) {
        ids.add(i.id);
      }
    }
    return ids;
  }

  /** The final state of every instance (and a node's properties), for the result line. */
  synchronized List<Map<String, Object>> snapshot() {
    List<Map<String, Object>> all = new ArrayList<>();
    for (Instance i : services.values()) {
      all.add(describe("service", i));
    }
    for (Instance i : nodes.values()) {
      // The properties the plans stored: what engine/ci.py compares between the
      // BPEL and BPMN runs of a plan (not in describe(): plans GET that).
      Map<String, Object> node = describe("node", i);
      if (!i.properties.isEmpty()) {
        node.put("properties", new TreeMap<>(i.properties));
      }
      all.add(node);
    }
    for (Instance i : relationships.values()) {
      all.add(describe("relationship", i));
    }
    return all;
  }

  synchronized Map<String, List<String>> planStates() {
    return new LinkedHashMap<>(planStates);
  }

  private static Map<String, Object> describe(String kind, Instance i) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", kind);
    m.put("template", i.template);
    m.put("instance", i.id);
    m.put("state", i.state);
    if (!i.side.isEmpty()) {
      m.put("side", i.side);
    }
    if (i.external) {
      m.put("external", true);
    }
    if (i.relationship) {
      m.put("source", i.source);
      m.put("target", i.target);
    }
    return m;
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }

  // ---------------------------------------------------------------- requests

  /**
   * What to answer: status, content type, body, an optional Location, and the body's XML form
   * (null: none) for a client that accepts XML, as bpel4RestLight calls do by default.
   */
  private record Answer(int status, String type, String body, String location, String xml) {
    static Answer text(String body) {
      return new Answer(200, "text/plain", body, null, null);
    }

    /** A new resource's URL: as text, and in XML as a `url` element. */
    static Answer created(String url) {
      return new Answer(200, "text/plain", url, null, Xml.element("ResourceCreated", Map.of("url", url)));
    }

    static Answer json(Object value) {
      return new Answer(200, "application/json", JsonOutput.toJson(value), null, null);
    }

    /** JSON, and in XML the same map as elements below `root` (lists as repeated `item` elements). */
    static Answer json(Object value, String root, String item) {
      return new Answer(200, "application/json", JsonOutput.toJson(value), null, Xml.element(root, value, item));
    }

    static Answer empty() {
      return new Answer(200, "text/plain", "", null, null);
    }

    static Answer reject(int status, String why) {
      return new Answer(status, "text/plain", why, null, null);
    }

    /** The body for a client that accepts `accept`. */
    Answer forAccept(String accept) {
      boolean wantsXml = accept != null && accept.contains("xml");
      return xml != null && wantsXml ? new Answer(status, "application/xml", xml, location, xml) : this;
    }
  }

  /** JSON-shaped values as XML text, for the answers BPEL plans read with XPath. */
  static final class Xml {
    static String element(String name, Object value) {
      return element(name, value, "item");
    }

    static String element(String name, Object value, String item) {
      StringBuilder s = new StringBuilder();
      write(s, name, value, item);
      return s.toString();
    }

    private static void write(StringBuilder s, String name, Object value, String item) {
      s.append('<').append(name).append('>');
      if (value instanceof Map<?, ?> m) {
        for (Map.Entry<?, ?> e : m.entrySet()) {
          if (e.getValue() instanceof List<?> l) {
            for (Object o : l) {
              write(s, item, o, item);
            }
          } else {
            write(s, String.valueOf(e.getKey()), e.getValue(), item);
          }
        }
      } else if (value != null) {
        s.append(String.valueOf(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"));
      }
      s.append("</").append(name).append('>');
    }
  }

  private static final Pattern ST_PATH =
      Pattern.compile("^/csars/([^/]+)/servicetemplates/([^/]+)(/.*)$");
  private static final Pattern TEMPLATE_PATH =
      Pattern.compile("^/(nodetemplates|relationshiptemplates)/([^/]+)/instances(?:/(\\d+)(/state|/properties)?)?/?$");
  private static final Pattern SERVICE_PATH =
      Pattern.compile("^/instances(?:/(\\d+)(/state|/properties)?)?/?$");
  private static final Pattern BUILD_PLAN_PATH =
      Pattern.compile("^/buildplans/([^/]+)/instances/([^/]+)(/state|/logs)$");
  private static final Pattern MANAGEMENT_PLAN_PATH =
      Pattern.compile("^/instances/(\\d+)/managementplans/([^/]+)/instances/([^/]+)(/state|/logs)$");
  private static final Pattern POLL_PATH =
      Pattern.compile("^/ManagementBus/v1/invoker/activeRequests/(\\d+)/?$");

  private void handle(HttpExchange x) throws IOException {
    String method = x.getRequestMethod();
    String path = x.getRequestURI().getRawPath();
    String query = x.getRequestURI().getRawQuery();
    String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String activity = x.getRequestHeaders().getFirst(ACTIVITY_HEADER);
    String accept = x.getRequestHeaders().getFirst("Accept");
    Map<String, Object> e;
    Answer a;
    synchronized (this) {
      e = trace.open("request");
      e.put("method", method);
      e.put("path", path + (query == null ? "" : "?" + query));
      if (activity != null) {
        e.put("activity", activity);
      }
      try {
        a = route(method, path, params(query), body, e).forAccept(accept);
      } catch (RuntimeException ex) {
        a = Answer.reject(400, "bad request: " + ex.getMessage());
      }
      if (a.status >= 400) {
        e.put("kind", "rejected");
        e.put("why", a.body);
      }
      e.put("status", a.status);
      if (!"invoke".equals(e.get("kind"))) {
        trace.close(e);
      }
    }
    byte[] out = a.body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().add("Content-Type", a.type);
    if (a.location != null) {
      x.getResponseHeaders().add("Location", a.location);
    }
    x.sendResponseHeaders(a.status, out.length == 0 ? -1 : out.length);
    try (OutputStream os = x.getResponseBody()) {
      os.write(out);
    }
  }

  private Answer route(String method, String path, Map<String, String> q, String body, Map<String, Object> e) {
    if (path.equals("/ManagementBus/v1/invoker") && method.equals("POST")) {
      return invoke(body, e);
    }
    Matcher poll = POLL_PATH.matcher(path);
    if (poll.matches() && method.equals("GET")) {
      return poll(Long.parseLong(poll.group(1)), e);
    }
    Matcher st = ST_PATH.matcher(path);
    if (!st.matches()) {
      return Answer.reject(404, "no such resource");
    }
    String side;
    if (st.group(1).equals(CSAR) && st.group(2).equals(ST)) {
      side = "";
    } else if (targetPath != null && ("/" + st.group(1) + "/servicetemplates/" + st.group(2)).equals(targetPath)) {
      side = "target";
    } else {
      return Answer.reject(404, "unknown CSAR or service template");
    }
    String rest = st.group(3);
    Matcher m = TEMPLATE_PATH.matcher(rest);
    if (m.matches()) {
      boolean rel = m.group(1).equals("relationshiptemplates");
      String template = decode(m.group(2));
      e.put("template", template);
      if (m.group(3) == null) {
        return method.equals("POST") ? createInstance(template, rel, body, e, side) : list(template, rel, q, e, side);
      }
      Instance i = (rel ? relationships : nodes).get(Long.parseLong(m.group(3)));
      if (i == null || !i.template.equals(template) || !i.side.equals(side)) {
        return Answer.reject(404, "no instance " + m.group(3) + " of " + template);
      }
      e.put("instance", i.id);
      return instanceResource(i, m.group(4), method, body, e);
    }
    m = SERVICE_PATH.matcher(rest);
    if (m.matches()) {
      if (m.group(1) == null) {
        if (!method.equals("POST")) {
          return Answer.reject(405, "only POST creates a service instance here");
        }
        e.put("kind", "instance");
        e.put("template", "");
        Instance s = createService();
        s.side = side;
        e.put("instance", s.id);
        return Answer.created(serviceTemplateUrl(side) + "/instances/" + s.id);
      }
      Instance s = services.get(Long.parseLong(m.group(1)));
      if (s == null || !s.side.equals(side)) {
        return Answer.reject(404, "no service instance " + m.group(1));
      }
      e.put("template", "");
      e.put("instance", s.id);
      return instanceResource(s, m.group(2), method, body, e);
    }
    m = BUILD_PLAN_PATH.matcher(rest);
    if (m.matches()) {
      return planInstance(decode(m.group(1)), decode(m.group(2)), m.group(3), method, body, e);
    }
    m = MANAGEMENT_PLAN_PATH.matcher(rest);
    if (m.matches()) {
      if (!services.containsKey(Long.parseLong(m.group(1)))) {
        return Answer.reject(404, "no service instance " + m.group(1));
      }
      return planInstance(decode(m.group(2)), decode(m.group(3)), m.group(4), method, body, e);
    }
    return Answer.reject(404, "no such resource");
  }

  private Instance createService() {
    Instance s = new Instance(nextId++, "", false, "INITIAL");
    services.put(s.id, s);
    return s;
  }

  private Answer createInstance(String template, boolean rel, String body, Map<String, Object> e, String side) {
    e.put("kind", "instance");
    Instance i = new Instance(nextId++, template, rel, "INITIAL");
    i.side = side;
    if (rel) {
      i.service = longAttr(body, "service-instance-id");
      i.source = longAttr(body, "source-instance-id");
      i.target = longAttr(body, "target-instance-id");
      e.put("source", i.source);
      e.put("target", i.target);
      if (!nodes.containsKey(i.source) || !nodes.containsKey(i.target)) {
        return Answer.reject(400, "relationship instance of " + template + ": source or target instance unknown");
      }
    } else {
      i.service = Long.parseLong(body.trim());
    }
    if (!services.containsKey(i.service)) {
      return Answer.reject(400, "no service instance " + i.service);
    }
    // The container keeps a service template's instances in its own service instances.
    if (!services.get(i.service).side.equals(side)) {
      return Answer.reject(400, "service instance " + i.service + " is not an instance of this service template");
    }
    if (rel && (!nodes.get(i.source).side.equals(side) || !nodes.get(i.target).side.equals(side))) {
      return Answer.reject(400, "relationship instance of " + template + ": an end is another service template's");
    }
    (rel ? relationships : nodes).put(i.id, i);
    e.put("instance", i.id);
    String kind = rel ? "relationshiptemplates" : "nodetemplates";
    return Answer.created(serviceTemplateUrl(side) + "/" + kind + "/" + template + "/instances/" + i.id);
  }

  private Answer list(String template, boolean rel, Map<String, String> q, Map<String, Object> e, String side) {
    e.put("kind", "list");
    List<Map<String, Object>> out = new ArrayList<>();
    for (Instance i : (rel ? relationships : nodes).values()) {
      // As the container: without a `state` filter, deleted instances are listed too.
      if (!i.template.equals(template) || !i.side.equals(side)) {
        continue;
      }
      if (q.containsKey("serviceInstanceId") && i.service != Long.parseLong(q.get("serviceInstanceId"))) {
        continue;
      }
      if (q.containsKey("state") && !List.of(q.get("state").split(",")).contains(i.state)) {
        continue;
      }
      if (q.containsKey("source") && i.source != Long.parseLong(q.get("source"))) {
        continue;
      }
      if (q.containsKey("target") && i.target != Long.parseLong(q.get("target"))) {
        continue;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", i.id);
      m.put("state", i.state);
      m.put("service_template_instance_id", i.service);
      if (rel) {
        m.put("relationship_template_id", i.template);
        m.put("source_node_template_instance_id", i.source);
        m.put("target_node_template_instance_id", i.target);
      } else {
        m.put("node_template_id", i.template);
      }
      out.add(m);
    }
    return Answer.json(Map.of(rel ? "relationship_template_instances" : "node_template_instances", out),
        rel ? "RelationshipTemplateInstanceList" : "NodeTemplateInstanceList",
        rel ? "RelationshipTemplateInstance" : "NodeTemplateInstance");
  }

  private Answer instanceResource(Instance i, String sub, String method, String body, Map<String, Object> e) {
    if ("/state".equals(sub)) {
      if (method.equals("PUT")) {
        e.put("kind", "state");
        String state = body.trim();
        if (!state.matches("[A-Z_]+")) {
          return Answer.reject(400, "not a state: " + state);
        }
        i.state = state;
        e.put("state", state);
        return Answer.empty();
      }
      e.put("kind", "state-get");
      return Answer.text(i.state);
    }
    if ("/properties".equals(sub)) {
      if (method.equals("PUT")) {
        e.put("kind", "property");
        i.properties.putAll(xmlProperties(body));
        return Answer.empty();
      }
      e.put("kind", "property-get");
      return Answer.json(i.properties, "Properties", "item");
    }
    if (!method.equals("GET")) {
      return Answer.reject(405, method + " on an instance");
    }
    e.put("kind", "instance-get");
    return Answer.json(describe(i.relationship ? "relationship" : "node", i),
        i.relationship ? "RelationshipTemplateInstance" : "NodeTemplateInstance", "item");
  }

  private Answer planInstance(String plan, String correlation, String sub, String method, String body, Map<String, Object> e) {
    e.put("plan", plan);
    e.put("correlation", correlation);
    if (sub.equals("/logs") && method.equals("POST")) {
      e.put("kind", "plan-log");
      e.put("message", body.length() > 200 ? body.substring(0, 200) : body);
      return Answer.empty();
    }
    if (sub.equals("/state") && method.equals("PUT")) {
      e.put("kind", "plan-state");
      String state = body.trim();
      if (!List.of("RUNNING", "FINISHED", "FAILED").contains(state)) {
        return Answer.reject(400, "not a plan instance state: " + state);
      }
      e.put("state", state);
      planStates.computeIfAbsent(plan, k -> new ArrayList<>()).add(state);
      return Answer.empty();
    }
    return Answer.reject(405, method + " " + sub + " of a plan instance");
  }

  @SuppressWarnings("unchecked")
  private Answer invoke(String body, Map<String, Object> e) {
    e.put("kind", "invoke");
    Map<String, Object> request = (Map<String, Object>) new JsonSlurper().parseText(body);
    Map<String, Object> info = (Map<String, Object>) request.get("invocation-information");
    if (info == null || info.get("interface") == null || info.get("operation") == null) {
      return Answer.reject(400, "invocation without interface or operation");
    }
    Object node = info.get("nodeTemplateID");
    Object rel = info.get("relationshipTemplateID");
    if ((node == null) == (rel == null)) {
      return Answer.reject(400, "invocation names neither or both of nodeTemplateID and relationshipTemplateID");
    }
    String template = String.valueOf(node != null ? node : rel);
    e.put("template", template);
    e.put("interface", String.valueOf(info.get("interface")));
    e.put("operation", String.valueOf(info.get("operation")));
    // The inputs as the plan computed them (checked where a run expects values).
    Object params = request.get("params");
    if (params instanceof Map<?, ?> m && !m.isEmpty()) {
      e.put("params", new TreeMap<>(m));
    }
    Object instanceUrl = info.get(node != null ? "nodeInstanceID" : "relationshipInstanceID");
    if (instanceUrl != null && !instanceUrl.toString().isEmpty()) {
      String s = instanceUrl.toString().replaceAll("/+$", "");
      e.put("instance", Long.parseLong(s.substring(s.lastIndexOf('/') + 1)));
    }
    String wrong = wrongContext(info, node != null, template);
    if (wrong != null) {
      return Answer.reject(400, wrong);
    }
    Invocation inv = new Invocation();
    inv.event = e;
    inv.fault = fail.equals(template + "/" + e.get("interface") + "/" + e.get("operation"));
    long id = nextId++;
    invocations.put(id, inv);
    return new Answer(202, "application/json", "{}", "/ManagementBus/v1/invoker/activeRequests/" + id, null);
  }

  /**
   * Why the bus would not find the invocation's template: the CSAR and service template must be
   * those of the service instance, and the node instance one of its instances of the template.
   */
  private String wrongContext(Map<String, Object> info, boolean isNode, String template) {
    Long serviceId = lastId(info.get("serviceInstanceID"));
    if (serviceId == null) {
      return null;
    }
    Instance service = services.get(serviceId);
    if (service == null) {
      return "invocation in unknown service instance " + serviceId;
    }
    String csar = String.valueOf(info.get("csarID"));
    String wantCsar = service.side.isEmpty() ? CSAR : targetCsar();
    if (!csar.equals(wantCsar)) {
      return "invocation of " + template + " with CSAR " + csar + " in a service instance of " + wantCsar;
    }
    if (!service.side.isEmpty() && !String.valueOf(info.get("serviceTemplateID")).equals(targetQName())) {
      return "invocation of " + template + " with service template " + info.get("serviceTemplateID")
          + " in a service instance of " + targetQName();
    }
    Long instanceId = isNode ? lastId(info.get("nodeInstanceID")) : null;
    if (instanceId != null) {
      Instance i = nodes.get(instanceId);
      if (i == null || !i.template.equals(template) || i.service != serviceId) {
        return "invocation of " + template + " on node instance " + instanceId
            + ", which is not an instance of it in service instance " + serviceId;
      }
    }
    return null;
  }

  private static Long lastId(Object url) {
    if (url == null || url.toString().isEmpty()) {
      return null;
    }
    String s = url.toString().replaceAll("/+$", "");
    try {
      return Long.parseLong(s.substring(s.lastIndexOf('/') + 1));
    } catch (NumberFormatException ex) {
      return null;
    }
  }

  private Answer poll(long id, Map<String, Object> e) {
    e.put("kind", "poll");
    Invocation inv = invocations.get(id);
    if (inv == null) {
      return Answer.reject(404, "no invocation " + id);
    }
    e.put("template", inv.event.get("template"));
    e.put("operation", inv.event.get("operation"));
    if (inv.polls++ < pendingPolls) {
      return Answer.json(Map.of("status", "PENDING"));
    }
    if (inv.polls > pendingPolls + 1) {
      return Answer.reject(404, "invocation " + id + " answered already");
    }
    trace.close(inv.event);
    inv.event.put("result", inv.fault ? "fault" : "ok");
    if (inv.fault) {
      return Answer.json(Map.of("Fault", "injected failure of " + fail));
    }
    Map<String, String> result = new TreeMap<>();
    for (String name : outputs) {
      String template = String.valueOf(inv.event.get("template"));
      result.put(name, answers.getOrDefault(template + "/" + name, name + "-of-" + template));
    }
    return Answer.json(result);
  }

  // ---------------------------------------------------------------- helpers

  private static Map<String, String> params(String query) {
    Map<String, String> m = new LinkedHashMap<>();
    if (query == null) {
      return m;
    }
    for (String kv : query.split("&")) {
      int i = kv.indexOf('=');
      if (i > 0) {
        m.put(decode(kv.substring(0, i)), decode(kv.substring(i + 1)));
      }
    }
    return m;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static long longAttr(String xml, String name) {
    Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(xml);
    if (!m.find()) {
      throw new IllegalArgumentException("no attribute " + name);
    }
    return Long.parseLong(m.group(1).trim());
  }

  /**
   * The child elements of a properties document, by local name (values unescaped); an
   * empty one, `<p:X/>` as `<p:X></p:X>`, is a property whose value is ''.
   */
  private static Map<String, String> xmlProperties(String xml) {
    Map<String, String> m = new TreeMap<>();
    Matcher x = Pattern.compile("<(?:[\\w.-]+:)?([\\w.-]+)(?:>([^<]*)</|\\s*/>)").matcher(xml);
    while (x.find()) {
      String value = x.group(2) == null ? "" : x.group(2);
      m.put(x.group(1), value.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"")
          .replace("&apos;", "'").replace("&amp;", "&"));
    }
    return m;
  }
}
