"""The tables' scoring: the one scoring surface every row goes through, the peers and their
family, the learned family, the report, the other-vectors column, and the STS benchmark (sts/).
"""
