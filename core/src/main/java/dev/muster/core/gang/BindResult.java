package dev.muster.core.gang;

/** The answer to a bind: bound, or an error a person can read (kube-scheduler puts it on the pod). */
public record BindResult(String error) {
    public static final BindResult BOUND = new BindResult("");

    public static BindResult failed(String error) {
        return new BindResult(error == null || error.isEmpty() ? "bind failed" : error);
    }

    public boolean ok() {
        return error.isEmpty();
    }
}
