"""Run consensus protocols (SAC and baselines) among LLM agents on certified topologies."""
