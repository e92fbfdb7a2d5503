"""knn family (filled by its issue)."""
