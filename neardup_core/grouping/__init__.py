"""Turning pairs above a threshold into groups (connected, strict or cohesive) and choosing
the file each group keeps."""
