php5 SampleAI.php
