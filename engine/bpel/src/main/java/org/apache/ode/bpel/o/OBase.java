package org.apache.ode.bpel.o;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;

/**
 * The harness's own base of ODE's compiled-process objects, put before ODE 1.3.7's jar (as
 * {@code org.apache.ode.bpel.engine.IMAManager} is). Same fields, identity and serial form as
 * ODE's; one difference: reading an object back sets its id before the fields of its subclasses
 * are read.
 *
 * <p>Why: ODE deploys a process by deserializing its compiled form (.cbp), a graph full of cycles
 * (a link names its source and target activities, each activity holds a {@code HashSet} of its
 * links). Compiled objects hash and compare by id. Since JDK 9 the default deserialization sets
 * an object's fields only once all of its classes' fields are read, so a link met again through a
 * cycle while it is still being read has id 0, and a set holding two such links keeps one: ODE on
 * JDK 17 loses incoming links of activities (found on a build plan whose scope had two, one of
 * them from an activity with six outgoing links) and an activity then waits for a link that never
 * comes, or starts before a predecessor ends. On the JDK 8 that ODE was built for, fields of each
 * class were set as soon as that class was read; a {@code readObject} method brings that back.
 */
public class OBase implements Serializable {
    static final long serialVersionUID = -1L;

    /** Unique among the objects of one compiled process; 0 for the process itself. */
    private final int _id;
    private final OProcess _owner;

    public DebugInfo debugInfo;

    protected OBase(OProcess owner) {
        _owner = owner;
        if (owner == null) {
            _id = 0;
        } else {
            _id = ++owner._childIdCounter;
            owner._children.add(this);
        }
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
    }

    public OProcess getOwner() {
        return _owner == null ? (OProcess) this : _owner;
    }

    @Override
    public int hashCode() {
        return _id;
    }

    @Override
    public boolean equals(Object obj) {
        if (!(obj instanceof OBase other)) {
            return false;
        }
        if (_id == 0 && other._id == 0) {
            return true;
        }
        return _id == other._id && other._owner.equals(_owner);
    }

    public int getId() {
        return _id;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "#" + _id;
    }

    /** Drops the debugging information (ODE calls this to save memory). */
    public void dehydrate() {
        if (debugInfo != null) {
            debugInfo.description = null;
            debugInfo.extensibilityElements = null;
            debugInfo = null;
        }
    }

    public String digest() {
        return "";
    }
}
