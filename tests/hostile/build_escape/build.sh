# writes outside its folder (its parent, /tmp, the workspace named by HOSTILE_HOME), then leaves a daemon
echo escaped > ../escaped.txt || echo "parent folder: denied"
echo escaped > /tmp/hexarena-build-escaped.txt && echo "tmp: private"
echo escaped > "$HOSTILE_HOME/escaped.txt" || echo "workspace: denied"
(setsid sleep 300 > /dev/null 2>&1 &)
echo built > built.txt
