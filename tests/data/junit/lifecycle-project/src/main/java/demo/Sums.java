package demo;

public final class Sums {
    private Sums() {
    }

    public static long sum(int[] data) {
        long total = 0;
        for (int value : data) {
            total += value;
        }
        return total;
    }
}
