python SampleAI.py
