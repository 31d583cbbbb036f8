package org.packetizer.core.pipeline;

/** Counters filled while packetizing one function (reported in the result). */
public final class Stats {
  public int blocks;
  public int keptBranches;
  public int linearizedBranches;
  public int selects;
  /** Exiting edges of divergent loops whose constant live-out value needed no blend (BlendGenerator.exitConstant). */
  public int exitConstants;
  public int vectorLoads;
  public int vectorStores;
  public int gathers;
  /** Table lookups loaded as W scalar loads from a uniform base plus 32-bit offsets. */
  public int tableLookups;
  /** Loads from varying addresses emitted as W scalar loads (MemoryWidener.laneLoads). */
  public int laneLoads;
  public int scatters;
  public int cascades;
  public int scalarStores;
  public int vectorCalls;
  public int scalarizedCalls;
}
