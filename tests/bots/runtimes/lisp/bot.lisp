;;; The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
(defun words (text)
  (loop for start = 0 then (1+ end)
        for end = (position #\Space text :start start)
        collect (subseq text start end)
        while end))

(defun predrawn (message drawn)
  (let* ((key "\"predrawn\":[")
         (start (search key message))
         (stop (and start (position #\] message :start start))))
    (when stop
      (loop for word in (words (substitute #\Space #\, (subseq message (+ start (length key)) stop)))
            for line = (parse-integer word :junk-allowed t)
            when line do (setf (gethash line drawn) t)))))

(defun main ()
  (format t "HELLO v1 ~a runtime-lisp~%" (or (sb-ext:posix-getenv "HEXARENA_TOKEN") ""))
  (finish-output)
  (let ((drawn (make-hash-table)))
    (loop for message = (read-line *standard-input* nil)
          while message
          do (let ((words (words message)))
               (cond ((string= (first words) "GAME") (clrhash drawn) (predrawn message drawn))
                     ((string= (first words) "DRAWN") (setf (gethash (parse-integer (third words)) drawn) t))
                     ((string= (first words) "TURN")
                      (let ((line 0))
                        (loop while (gethash line drawn) do (incf line))
                        (format t "MOVE ~a ~d~%" (second words) line)
                        (finish-output)))
                     ((string= (first words) "BYE") (sb-ext:exit :code 0)))))))

(main)
