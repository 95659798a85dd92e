package org.toscanini.engine;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.dao.BpelDAOConnectionFactory;
import org.apache.ode.bpel.engine.BpelServerImpl;
import org.apache.ode.bpel.evt.BpelEvent;
import org.apache.ode.bpel.evt.ProcessEvent;
import org.apache.ode.bpel.evt.ProcessInstanceStateChangeEvent;
import org.apache.ode.bpel.evt.ScopeCompletionEvent;
import org.apache.ode.bpel.evt.ScopeFaultEvent;
import org.apache.ode.bpel.evt.ScopeStartEvent;
import org.apache.ode.bpel.iapi.BindingContext;
import org.apache.ode.bpel.iapi.BpelEventListener;
import org.apache.ode.bpel.iapi.Endpoint;
import org.apache.ode.bpel.iapi.EndpointReference;
import org.apache.ode.bpel.iapi.EndpointReferenceContext;
import org.apache.ode.bpel.iapi.Message;
import org.apache.ode.bpel.iapi.MessageExchangeContext;
import org.apache.ode.bpel.iapi.MyRoleMessageExchange;
import org.apache.ode.bpel.iapi.PartnerRoleChannel;
import org.apache.ode.bpel.iapi.PartnerRoleMessageExchange;
import org.apache.ode.bpel.iapi.Scheduler;
import org.apache.ode.bpel.memdao.BpelDAOConnectionFactoryImpl;
import org.apache.ode.bpel.common.ProcessState;
import org.toscanini.bpel.OdeLog;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Apache ODE 1.3.7's BPEL engine in this JVM: its in-memory DAO, {@link MemScheduler}, and the
 * partners of a plan played here. The client's callback ({@code onResult}) ends a run; the
 * management bus invoker ({@code invokeOperationAsync}) is answered by the mock container's bus
 * (POST, then polls) and its result sent back to the plan's callback port, correlated on
 * MessageID as the bus does; the bpel4RestLight stand-in ({@link RestStandIns}) is an HTTP request
 * to the mock container. Scope starts and ends go into the trace as activity events.
 */
final class OdeServer implements AutoCloseable {
    static final String INVS = "http://siserver.org/schema";

    /** What the current run is: its trace, its deployment, how it ended. */
    static final class Run {
        final Trace trace;
        /** The plan's process; its events are the run's. */
        final OdeDeployment deployment;
        /** Where the bus calls back: the process of the plan's package that provides `invoker`. */
        final OdeDeployment callbacks;
        volatile String ended;
        volatile String output;
        final List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger pending = new AtomicInteger();
        String busUrl;

        Run(Trace trace, List<OdeDeployment> deployments) {
            this.trace = trace;
            this.deployment = deployments.get(0);
            this.callbacks = deployments.stream().filter(d -> d.provided("invoker") != null).findFirst()
                    .orElse(deployment);
        }
    }

    private final BpelServerImpl server = new BpelServerImpl();
    private final MemScheduler scheduler = new MemScheduler();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final ExecutorService bus = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "bus");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong ids = new AtomicLong();
    private volatile Run run;

    OdeServer() {
        BpelDAOConnectionFactory dao = new BpelDAOConnectionFactoryImpl(scheduler);
        server.setDaoConnectionFactory(dao);
        server.setInMemDaoConnectionFactory(new BpelDAOConnectionFactoryImpl(scheduler));
        server.setScheduler(scheduler);
        server.setBindingContext(new Bindings());
        server.setEndpointReferenceContext(new Eprs());
        server.setMessageExchangeContext(new Partners());
        server.setConfigProperties(new Properties());
        server.registerBpelEventListener(new Events());
        server.init();
        scheduler.setJobProcessor(server);
        server.start();
        scheduler.start();
    }

    void register(OdeDeployment d) {
        server.register(d);
    }

    void unregister(OdeDeployment d) {
        server.unregister(d.getProcessId());
    }

    /** Starts the plan with its input message; the run ends when the plan calls back or fails. */
    void start(Run r, String operation, QName requestType, Element payload) throws Exception {
        run = r;
        scheduler.clearFailure();
        OdeLog.takeRunErrors(); // an earlier run's
        Endpoint client = r.deployment.provided("client");
        scheduler.execTransaction(() -> {
            MyRoleMessageExchange mex = server.getEngine().createMessageExchange("run-" + ids.incrementAndGet(),
                    client.serviceName, operation);
            Message msg = mex.createMessage(requestType);
            msg.setMessage(message(Map.of("payload", payload)));
            mex.invoke(msg);
            return null;
        });
    }

    /** Waits until the run ended and nothing is left to do, or the deadline passed. */
    boolean await(Run r, long deadline) throws InterruptedException {
        while (System.currentTimeMillis() < deadline) {
            takeOdeErrors(r);
            if (r.ended != null && r.pending.get() == 0 && scheduler.awaitIdle(Math.min(deadline,
                    System.currentTimeMillis() + 200)) && r.pending.get() == 0) {
                return true;
            }
            if (scheduler.failure() != null || !r.problems.isEmpty()) {
                return false;
            }
            Thread.sleep(5);
        }
        return false;
    }

    /**
     * ODE's logged errors become the run's problems: ODE goes on after logging them (a job that
     * threw, a join condition it could not evaluate), so they must not pass unseen.
     */
    void takeOdeErrors(Run r) {
        for (OdeLog.Entry e : OdeLog.takeRunErrors()) {
            if (e.thrown() != null && MemScheduler.unrouted(e.thrown())) {
                // A bus callback for a scope a failure ended: ODE logs it where it would
                // otherwise throw it (see MemScheduler.work()).
                scheduler.countDropped();
                continue;
            }
            r.problems.add("ODE logged an error (" + e.logger() + "): " + e.message()
                    + (e.thrown() == null ? "" : " <- " + describe(e.thrown())));
        }
    }

    /** An exception ODE threw or logged, with its causes. */
    static String describe(Throwable t) {
        StringBuilder s = new StringBuilder(String.valueOf(t));
        for (Throwable c = t.getCause(); c != null && c != t; c = c.getCause()) {
            s.append(" <- ").append(c);
            t = c;
        }
        return s.toString();
    }

    /** Jobs ODE scheduled that have not run. */
    int pending() {
        return scheduler.pending();
    }

    int dropped() {
        return scheduler.dropped();
    }

    Throwable failure() {
        return scheduler.failure();
    }

    @Override
    public void close() {
        bus.shutdownNow();
        scheduler.stop();
        try {
            server.stop();
        } catch (RuntimeException ignored) {
            // shutting down
        }
    }

    // ------------------------------------------------------------------ messages

    /** ODE's message form: {@code <message>} with one element per part, holding its value. */
    static Element message(Map<String, Object> parts) {
        Document doc = XmlText.newDocument();
        Element m = doc.createElementNS(null, "message");
        doc.appendChild(m);
        for (Map.Entry<String, Object> p : parts.entrySet()) {
            Element part = doc.createElementNS(null, p.getKey());
            if (p.getValue() instanceof Node n) {
                part.appendChild(doc.importNode(n, true));
            } else if (p.getValue() != null) {
                part.setTextContent(p.getValue().toString());
            }
            m.appendChild(part);
        }
        return m;
    }

    static String text(Element part) {
        return part == null ? "" : part.getTextContent();
    }

    /**
     * A part's value as a request body: the part element serialized where the request variable held
     * an element (WS-BPEL's copy gives the part that element's attributes and children under the
     * part's own name), else its text.
     */
    static String body(Element part) {
        if (part == null) {
            return "";
        }
        boolean element = part.hasAttributes();
        for (Node c = part.getFirstChild(); c != null && !element; c = c.getNextSibling()) {
            element = c.getNodeType() == Node.ELEMENT_NODE;
        }
        return element ? XmlText.serialize(part) : part.getTextContent();
    }

    // ------------------------------------------------------------------ partners

    private final class Partners implements MessageExchangeContext {
        @Override
        public void invokePartner(PartnerRoleMessageExchange pmex) {
            String op = pmex.getOperationName();
            Run r = run;
            try {
                // ODE passes a call of another process of the server to it; what reaches the
                // harness is a partner it plays. The REST stand-in is told by its port type (its
                // operation is named call, as the plan's call process's is).
                if (pmex.getPortType().getQName().getNamespaceURI().equals(RestStandIns.NS)) {
                    rest(pmex);
                    return;
                }
                switch (op) {
                    case "invokeOperationAsync" -> invoke(r, pmex);
                    case "onResult" -> {
                        r.output = body(pmex.getRequest().getPart("payload"));
                        pmex.replyOneWayOk();
                    }
                    default -> pmex.replyWithFailure(org.apache.ode.bpel.iapi.MessageExchange.FailureType.OTHER,
                            "the harness plays no partner with operation " + op, null);
                }
            } catch (Exception e) {
                r.problems.add("partner " + op + ": " + e);
                pmex.replyWithFailure(org.apache.ode.bpel.iapi.MessageExchange.FailureType.OTHER, e.toString(), null);
            }
        }

        @Override
        public void onAsyncReply(MyRoleMessageExchange mex) {
        }
    }

    /** A bpel4RestLight call, made as the extension would make it. */
    private void rest(PartnerRoleMessageExchange pmex) throws IOException, InterruptedException {
        Message req = pmex.getRequest();
        String method = text(req.getPart("method"));
        String uri = text(req.getPart("uri"));
        String contentType = text(req.getPart("contentType"));
        String accept = text(req.getPart("accept"));
        String activity = text(req.getPart("activity"));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30))
                .header("Accept", accept.isEmpty() ? "application/xml" : accept);
        if (!activity.isEmpty()) {
            b.header(Mock.ACTIVITY_HEADER, activity);
        }
        if (method.equals("POST") || method.equals("PUT")) {
            b.header("Content-Type", contentType.isEmpty() ? "application/xml" : contentType);
            b.method(method, HttpRequest.BodyPublishers.ofString(body(bodyPart(req)), StandardCharsets.UTF_8));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        Object value = res.body();
        String type = res.headers().firstValue("Content-Type").orElse("");
        if (type.contains("xml") && !res.body().isBlank()) {
            value = XmlText.parse(res.body()).getDocumentElement();
        }
        Message out = pmex.createMessage(pmex.getOperation().getOutput().getMessage().getQName());
        Map<String, Object> parts = new LinkedHashMap<>();
        parts.put("body", value);
        out.setMessage(message(parts));
        pmex.reply(out);
    }

    /** The request's body part: the last part, which may carry the name of the element copied into it. */
    private static Element bodyPart(Message req) {
        Element last = null;
        for (Node c = req.getMessage().getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e) {
                last = e;
            }
        }
        return last;
    }

    /** An operation through the bus: accepted at once, answered on the callback port later. */
    private void invoke(Run r, PartnerRoleMessageExchange pmex) throws Exception {
        Element call = firstElement(pmex.getRequest().getPart("invokeOperationAsync"));
        String activity = text(pmex.getRequest().getPart("activity"));
        Map<String, String> f = new LinkedHashMap<>();
        Map<String, String> params = new LinkedHashMap<>();
        for (Node c = call.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e) {
                if (e.getLocalName().equals("Params")) {
                    for (Element p : org.toscanini.bpel.Xml.children(e, INVS, "Param")) {
                        params.put(childText(p, "key"), childText(p, "value"));
                    }
                } else {
                    f.put(e.getLocalName(), e.getTextContent());
                }
            }
        }
        pmex.replyOneWayOk();
        r.pending.incrementAndGet();
        scheduler.registerSynchronizer(new Scheduler.Synchronizer() {
            @Override
            public void afterCompletion(boolean success) {
                if (!success) {
                    r.pending.decrementAndGet();
                    return;
                }
                bus.submit(() -> {
                    try {
                        Map<String, String> result = BusCall.run(http, r.busUrl, f, params, activity);
                        scheduler.later(() -> {
                            if (run == r) { // a run given up may leave a call behind
                                callback(r, f.get("MessageID"), result);
                            }
                        });
                    } catch (Exception e) {
                        r.problems.add("management bus call " + f.get("OperationName") + ": " + e);
                    } finally {
                        r.pending.decrementAndGet();
                    }
                });
            }

            @Override
            public void beforeCompletion() {
            }
        });
    }

    /** The bus's answer, on the plan's callback port. */
    private void callback(Run r, String messageId, Map<String, String> result) {
        if (OdeLog.DEBUG) {
            System.err.println("callback " + messageId + " " + result.keySet());
        }
        Endpoint cb = r.callbacks.provided("invoker");
        MyRoleMessageExchange mex = server.getEngine().createMessageExchange("bus-" + ids.incrementAndGet(),
                cb.serviceName, "callback");
        Document doc = XmlText.newDocument();
        Element resp = doc.createElementNS(INVS, "invs:invokeResponse");
        doc.appendChild(resp);
        Element id = doc.createElementNS(INVS, "invs:MessageID");
        id.setTextContent(messageId);
        resp.appendChild(id);
        Element ps = doc.createElementNS(INVS, "invs:Params");
        resp.appendChild(ps);
        for (Map.Entry<String, String> e : result.entrySet()) {
            Element p = doc.createElementNS(INVS, "invs:Param");
            Element k = doc.createElementNS(INVS, "invs:key");
            k.setTextContent(e.getKey());
            Element v = doc.createElementNS(INVS, "invs:value");
            v.setTextContent(e.getValue());
            p.appendChild(k);
            p.appendChild(v);
            ps.appendChild(p);
        }
        Message msg = mex.createMessage(new QName("http://siserver.org/wsdl", "invokeResponse"));
        msg.setMessage(message(Map.of("invokeResponse", resp)));
        mex.invoke(msg);
    }

    private static Element firstElement(Element part) {
        for (Node c = part.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e) {
                return e;
            }
        }
        throw new IllegalArgumentException("empty part " + part.getLocalName());
    }

    private static String childText(Element e, String local) {
        Element c = org.toscanini.bpel.Xml.child(e, INVS, local);
        return c == null ? "" : c.getTextContent();
    }

    // ------------------------------------------------------------------ events

    private final class Events implements BpelEventListener {
        @Override
        public void onEvent(BpelEvent event) {
            Run r = run;
            if (r == null) {
                return;
            }
            // A call process's instances (one per call) are not the plan's: their bus requests
            // name the plan's scopes, and their ends are not the plan's.
            if (event instanceof ProcessEvent pe && !r.deployment.getType().equals(pe.getProcessName())) {
                return;
            }
            if (event instanceof ScopeStartEvent s) {
                mark(r, s.getScopeName(), "start");
            } else if (event instanceof ScopeCompletionEvent s) {
                mark(r, s.getScopeName(), "end");
            } else if (event instanceof ScopeFaultEvent s) {
                mark(r, s.getScopeName(), "end").put("fault", s.getFaultType() + " at line " + s.getFaultLineNo()
                        + (s.getExplanation() == null ? "" : ": " + s.getExplanation()));
            } else if (event instanceof ProcessInstanceStateChangeEvent p) {
                switch (p.getNewState()) {
                    case ProcessState.STATE_COMPLETED_OK -> r.ended = "normal";
                    case ProcessState.STATE_COMPLETED_WITH_FAULT,
                            ProcessState.STATE_TERMINATED -> r.ended = "error";
                    default -> {
                    }
                }
            }
        }

        private Map<String, Object> mark(Run r, String scope, String what) {
            Map<String, Object> e = r.trace.open("activity");
            e.put("activity", scope == null ? "" : scope);
            e.put("event", what);
            return e;
        }

        @Override
        public void startup(Properties p) {
        }

        @Override
        public void shutdown() {
        }
    }

    // ------------------------------------------------------------------ endpoints

    private record Epr(Document doc) implements EndpointReference {
        @Override
        public Document toXML() {
            return doc;
        }

        static Epr of(String address) {
            Document d = XmlText.newDocument();
            Element e = d.createElementNS("http://www.w3.org/2005/08/addressing", "wsa:EndpointReference");
            Element a = d.createElementNS("http://www.w3.org/2005/08/addressing", "wsa:Address");
            a.setTextContent(address);
            e.appendChild(a);
            d.appendChild(e);
            return new Epr(d);
        }
    }

    private static final class Bindings implements BindingContext {
        @Override
        public EndpointReference activateMyRoleEndpoint(QName processId, Endpoint myRole) {
            return Epr.of("urn:toscanini:" + myRole.serviceName.getLocalPart());
        }

        @Override
        public void deactivateMyRoleEndpoint(Endpoint myRole) {
        }

        @Override
        public PartnerRoleChannel createPartnerRoleChannel(QName processId, javax.wsdl.PortType portType,
                Endpoint initial) {
            EndpointReference epr = Epr.of("urn:toscanini:" + initial.serviceName.getLocalPart());
            return new PartnerRoleChannel() {
                @Override
                public EndpointReference getInitialEndpointReference() {
                    return epr;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public long calculateSizeofService(EndpointReference epr) {
            return 0;
        }
    }

    private static final class Eprs implements EndpointReferenceContext {
        @Override
        public EndpointReference resolveEndpointReference(Element element) {
            Document d = XmlText.newDocument();
            d.appendChild(d.importNode(element, true));
            return new Epr(d);
        }

        @Override
        public EndpointReference convertEndpoint(QName type, Element element) {
            return resolveEndpointReference(element);
        }

        @Override
        public Map getConfigLookup(EndpointReference epr) {
            return new LinkedHashMap<>();
        }
    }
}
