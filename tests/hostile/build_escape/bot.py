from hexarena.protocol.client import run_bot

run_bot(lambda game, state: state.legal_moves()[0])
