package dev.muster.demo.report;

/** Groups the extender's reasons for a gang not starting into a few kinds a person recognises. */
public enum ReasonCategory {
    QUEUE_CAPABILITY("queue capability reached"),
    NOT_ENOUGH_RESOURCES("not enough free resources"),
    WAITING_FOR_MEMBERS("waiting for its pods to exist"),
    QUEUE_NOT_OPEN("queue closed or missing"),
    OTHER("other");

    private final String label;

    ReasonCategory(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static ReasonCategory of(String reason) {
        String r = reason == null ? "" : reason;
        if (r.contains("would be exceeded")) {
            return QUEUE_CAPABILITY;
        }
        if (r.contains(" is Closed") || r.contains(" is Closing") || r.contains("does not exist")) {
            return QUEUE_NOT_OPEN;
        }
        if (r.contains("pods exist") || r.contains("members,")) {
            return WAITING_FOR_MEMBERS;
        }
        if (r.contains("needs ") || r.contains("fits") || r.contains("insufficient")) {
            return NOT_ENOUGH_RESOURCES;
        }
        return OTHER;
    }
}
