package org.apache.ode.bpel.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.wsdl.OperationType;
import org.apache.ode.bpel.common.CorrelationKeySet;
import org.apache.ode.bpel.runtime.PartnerLinkInstance;
import org.apache.ode.bpel.runtime.Selector;

/**
 * toscanini's stand-in for ODE 1.3.7's class of this name, which the harness puts before ODE's jar
 * (written for the harness from the signatures ODE's runtime calls; not ODE's code).
 *
 * <p>It keeps ODE's bookkeeping of inbound message activities (receives, picks) with one change:
 * two receives enabled at once conflict (bpel:conflictingReceive) only when they wait on the same
 * partner link instance, operation <em>and correlation key set</em>, as WS-BPEL 2.0 §10.4 says
 * and as the later ODE 1.3 code does (its IMAManager2). ODE 1.3.7 leaves the correlation out, so
 * a plan's parallel management-bus calls, each waiting for its callback on the one partner link
 * with its own MessageID, fault there; the plans target ODE 1.3.8 (the OpenTOSCA container's
 * build), which Maven Central does not have.
 */
public class IMAManager implements Serializable {
    private static final long serialVersionUID = 1L;

    /** One enabled receive or pick branch: where it waits. */
    private record Waiting(PartnerLinkInstance link, String operation, CorrelationKeySet keys)
            implements Serializable {
    }

    /** A request that was received and still owes its reply. */
    private record Open(PartnerLinkInstance link, String operation, String exchange) implements Serializable {
    }

    private final Map<Waiting, String> channelOf = new HashMap<>();
    private final Map<String, List<Waiting>> byChannel = new HashMap<>();
    private final Map<Open, String> open = new HashMap<>();

    public IMAManager() {
    }

    private static Waiting waiting(Selector s) {
        return new Waiting(s.plinkInstance, s.opName, s.correlationKeySet);
    }

    /** The index of the first selector that conflicts with an enabled one or an earlier one, or -1. */
    int findConflict(Selector[] selectors) {
        List<Waiting> seen = new ArrayList<>();
        for (int i = 0; i < selectors.length; i++) {
            Waiting w = waiting(selectors[i]);
            if (channelOf.containsKey(w) || seen.contains(w)) {
                return i;
            }
            seen.add(w);
        }
        return -1;
    }

    void register(String channel, Selector[] selectors) {
        if (byChannel.containsKey(channel)) {
            throw new IllegalArgumentException("response channel registered twice: " + channel);
        }
        List<Waiting> all = new ArrayList<>();
        for (Selector s : selectors) {
            Waiting w = waiting(s);
            if (channelOf.putIfAbsent(w, channel) != null) {
                throw new IllegalStateException("receive registered twice: " + w);
            }
            all.add(w);
        }
        byChannel.put(channel, all);
    }

    /** Null, or `mexRef` when the same request is open already (conflictingRequest). */
    String processOutstandingRequest(PartnerLinkInstance link, String operation, String exchange, String mexRef) {
        Open o = new Open(link, operation, exchange == null ? "" : exchange);
        if (open.containsKey(o)) {
            return mexRef;
        }
        if (link.partnerLink.getMyRoleOperation(operation).getStyle() == OperationType.REQUEST_RESPONSE) {
            open.put(o, mexRef);
        }
        return null;
    }

    void cancel(String channel, boolean timer) {
        List<Waiting> all = byChannel.remove(channel);
        if (all == null) {
            if (!timer) {
                throw new IllegalArgumentException("no receive for response channel " + channel);
            }
            return;
        }
        all.forEach(channelOf::remove);
    }

    public String release(PartnerLinkInstance link, String operation, String exchange) {
        return open.remove(new Open(link, operation, exchange == null ? "" : exchange));
    }

    public void migrateRids(Map<?, ?> old) {
        throw new UnsupportedOperationException("no migration of persisted instances in the harness");
    }

    public String[] releaseAll() {
        String[] refs = open.values().toArray(new String[0]);
        open.clear();
        return refs;
    }

    @Override
    public String toString() {
        return "IMAManager{waiting=" + channelOf + ", open=" + open + "}";
    }

    @Override
    public int hashCode() {
        return Objects.hash(channelOf, open);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IMAManager m && m.channelOf.equals(channelOf) && m.open.equals(open);
    }
}
